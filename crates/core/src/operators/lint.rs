//! Checking operator and prompt files, collecting every problem with its file and line, so that
//! an author fixes a file in one pass and a bad user file never reaches a model.

use std::path::{Path, PathBuf};

use super::{Builtin, FrontMatter, Operator, OperatorId, valid_id};
use crate::prompt::{self, PromptKind, SECTIONS};

/// One problem in one file: `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckProblem {
    pub file: String,
    /// 1-based.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for CheckProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// What reading one operator file gave: the operator when it could be built, and every problem.
pub(super) struct ReadOperator {
    pub op: Option<Operator>,
    pub id_line: usize,
    pub problems: Vec<CheckProblem>,
}

/// An operator file that passed, and whether it is a built-in operator's own file.
pub(super) struct Loaded {
    pub op: Operator,
    pub id_line: usize,
    pub is_builtin: bool,
}

/// The section titles an operator file may hold once each.
const TITLES: [&str; 4] = ["Prompt", "Examples", "Function", "Instructions"];

/// The `+++` front matter of an operator file: its text, where the body starts (byte), and
/// the line of its closing fence.
struct Fenced<'t> {
    front: &'t str,
    body_start: usize,
    fence_line: usize,
}

/// Finds the front matter, or the problem with its fences.
fn fenced<'t>(text: &'t str) -> Result<Fenced<'t>, (usize, &'static str)> {
    let is_fence = |l: &str| l.trim_end() == "+++";
    let mut lines = text.split_inclusive('\n');
    if !lines.next().is_some_and(is_fence) {
        return Err((
            1,
            "no front matter: an operator file starts with a `+++` line",
        ));
    }
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let (mut offset, mut fence_line) = (start, 1);
    for l in lines {
        fence_line += 1;
        if is_fence(l) {
            return Ok(Fenced {
                front: &text[start..offset],
                body_start: offset + l.len(),
                fence_line,
            });
        }
        offset += l.len();
    }
    Err((
        1,
        "the front matter opened here is not closed by a `+++` line",
    ))
}

pub(super) fn read_operator(text: &str, file: &str) -> ReadOperator {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let problem = |line: usize, message: String| CheckProblem {
        file: file.to_string(),
        line,
        message,
    };
    let mut out = ReadOperator {
        op: None,
        id_line: 1,
        problems: Vec::new(),
    };
    let Fenced {
        front,
        body_start,
        fence_line,
    } = match fenced(text) {
        Ok(f) => f,
        Err((line, message)) => {
            out.problems.push(problem(line, message.into()));
            return out;
        }
    };
    // The front matter starts on the file's line 2.
    let line_at = |byte: usize| 2 + front[..byte.min(front.len())].matches('\n').count();
    out.id_line = front
        .lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix("id")
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(2, |i| i + 2);
    let front_matter = match toml::from_str::<FrontMatter>(front) {
        Ok(fm) => Some(fm),
        Err(e) => {
            let line = e.span().map_or(2, |s| line_at(s.start));
            out.problems.push(problem(
                line,
                format!("front matter: {}", e.message().trim()),
            ));
            None
        }
    };
    let body = &text[body_start..];
    let sections = check_body(body, fence_line + 1, text.lines().count().max(1), &problem);
    out.problems.extend(sections.1);
    let Some(fm) = front_matter else {
        return out;
    };
    if !valid_id(&fm.id) {
        out.problems.push(problem(
            out.id_line,
            format!(
                "operator id `{}` is not a letter followed by letters, digits, `_` or `-` (like `U1` or `X-deprecate`)",
                fm.id
            ),
        ));
    }
    let Some(contract) = fm.contract.clone() else {
        out.problems.push(problem(
            fence_line,
            "the front matter has no [contract] table: say which schema changes a round of this operator makes".into(),
        ));
        return out;
    };
    out.op = Some(operator(fm, contract, &sections.0, body, file));
    out
}

/// The operator a checked file defines.
fn operator(
    fm: FrontMatter,
    contract: crate::contract::Contract,
    sections: &[prompt::Section],
    body: &str,
    file: &str,
) -> Operator {
    let get = |title: &str| {
        sections
            .iter()
            .find(|s| s.title == title)
            .map(|s| s.text.clone())
            .unwrap_or_default()
    };
    Operator {
        id: OperatorId::parse(&fm.id),
        name: fm.name,
        level: fm.level,
        patterns: fm.patterns,
        summary: fm.summary,
        contract,
        body: body.trim_start_matches(['\n', '\r']).to_string(),
        file: file.into(),
        prompt: get("Prompt"),
        examples: get("Examples"),
        function: get("Function"),
        instructions: get("Instructions"),
    }
}

/// The known sections of a body whose first line is the file's `first_line`, and the problems:
/// a missing `## Prompt`, a repeated section, placeholders unknown or unavailable there.
fn check_body(
    body: &str,
    first_line: usize,
    last_line: usize,
    problem: &dyn Fn(usize, String) -> CheckProblem,
) -> (Vec<prompt::Section>, Vec<CheckProblem>) {
    let mut problems = Vec::new();
    let mut known: Vec<prompt::Section> = Vec::new();
    for s in prompt::sections(body) {
        let Some(title) = TITLES.iter().find(|t| t.eq_ignore_ascii_case(&s.title)) else {
            continue; // other sections are notes for people
        };
        let line = first_line + s.line - 1;
        if known.iter().any(|k| k.title == *title) {
            problems.push(problem(
                line,
                format!("a second `## {title}` section; keep one"),
            ));
            continue;
        }
        let text_line = line + 1;
        for (l, message) in prompt::check_template(PromptKind::Mutation, &s.raw, text_line) {
            problems.push(problem(l, message));
        }
        if *title != "Prompt" {
            for (name, l) in prompt::placeholders(&s.raw) {
                if SECTIONS.contains(&name.as_str()) {
                    problems.push(problem(
                        text_line + l - 1,
                        format!("{{{{{name}}}}} belongs in `## Prompt`; a section cannot include a section"),
                    ));
                }
            }
        }
        known.push(prompt::Section {
            title: title.to_string(),
            ..s
        });
    }
    match known.iter().find(|s| s.title == "Prompt") {
        None => problems.push(problem(
            last_line,
            "no `## Prompt` section: the template of the mutation prompt, with {{placeholders}} (see `mcpevol operators new`)".into(),
        )),
        Some(p) => {
            let text_line = first_line + p.line;
            for (name, l) in prompt::placeholders(&p.raw) {
                let title = format!("{}{}", name[..1].to_uppercase(), &name[1..]);
                if SECTIONS.contains(&name.as_str()) && !known.iter().any(|k| k.title == title) {
                    problems.push(problem(
                        text_line + l - 1,
                        format!("{{{{{name}}}}} is used but the file has no `## {title}` section"),
                    ));
                }
            }
        }
    }
    (known, problems)
}

/// The problems of a shared prompt file (`_select.md`, ...).
pub(super) fn read_prompt(kind: PromptKind, text: &str, file: &str) -> Vec<CheckProblem> {
    let blanked = prompt::blank_comments(text);
    prompt::check_template(kind, &blanked, 1)
        .into_iter()
        .map(|(line, message)| CheckProblem {
            file: file.to_string(),
            line,
            message,
        })
        .collect()
}

/// The `*.md` files of a folder, sorted, without `README.md`.
pub(super) fn md_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_file()
            && path.extension().is_some_and(|e| e == "md")
            && !name.eq_ignore_ascii_case("README.md")
        {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}

/// Reads and checks files: operators, and shared prompts (names starting with `_`). Ids must be
/// unique among the files and must not be a built-in id, unless the file is that built-in's own.
pub(super) fn gather(files: &[PathBuf]) -> (Vec<Loaded>, Vec<CheckProblem>) {
    let builtins = super::builtin();
    let mut loaded: Vec<Loaded> = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(CheckProblem {
                    file,
                    line: 1,
                    message: format!("cannot read: {e}"),
                });
                continue;
            }
        };
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with('_') {
            match PromptKind::from_file_name(name) {
                Some(kind) => problems.extend(read_prompt(kind, &text, &file)),
                None => problems.push(CheckProblem {
                    file,
                    line: 1,
                    message: "files starting with `_` are shared prompts, and this is none of `_select.md`, `_feedback.md`, `_tests.md`, `_release.md`".into(),
                }),
            }
            continue;
        }
        let read = read_operator(&text, &file);
        problems.extend(read.problems.iter().cloned());
        let Some(op) = read.op.filter(|_| read.problems.is_empty()) else {
            continue;
        };
        let builtin = builtins.iter().find(|b| b.id == op.id);
        let is_builtin = builtin.is_some() && is_builtin_file(path, &text);
        if let Some(b) = builtin.filter(|_| !is_builtin) {
            problems.push(CheckProblem {
                file: file.clone(),
                line: read.id_line,
                message: format!(
                    "operator id `{}` clashes with built-in operator {} {} ({}); a user operator needs an id of its own, like `U1`",
                    op.id, b.id, b.name, b.file
                ),
            });
            continue;
        }
        if let Some(first) = loaded.iter().find(|l| l.op.id == op.id) {
            problems.push(CheckProblem {
                file: file.clone(),
                line: read.id_line,
                message: format!(
                    "operator id `{}` is already defined in {}:{}",
                    op.id, first.op.file, first.id_line
                ),
            });
            continue;
        }
        loaded.push(Loaded {
            op,
            id_line: read.id_line,
            is_builtin,
        });
    }
    problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    (loaded, problems)
}

/// A built-in operator's own file: this repository's `operators/` folder, or a verbatim copy.
fn is_builtin_file(path: &Path, text: &str) -> bool {
    let repo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("operators");
    let here = path.parent().and_then(|d| d.canonicalize().ok());
    Builtin::ALL.iter().any(|b| b.file().1 == text)
        || (here.is_some() && here == repo.canonicalize().ok())
}

/// Checks an operator file, a shared prompt file, or every `*.md` of a folder. Returns the
/// operators found, or every problem, sorted by file and line.
pub fn check_path(path: &Path) -> Result<Vec<Operator>, Vec<CheckProblem>> {
    let files = if path.is_dir() {
        match md_files(path) {
            Ok(f) => f,
            Err(e) => {
                return Err(vec![CheckProblem {
                    file: path.display().to_string(),
                    line: 1,
                    message: format!("cannot read the folder: {e}"),
                }]);
            }
        }
    } else {
        vec![path.to_path_buf()]
    };
    let (loaded, problems) = gather(&files);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut ops: Vec<Operator> = loaded.into_iter().map(|l| l.op).collect();
    ops.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(ops)
}
