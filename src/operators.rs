//! Operators, the kinds of change one round makes (Table 11 of MCPEvol-Bench), kept as data:
//! Markdown files with TOML front matter (`id`, `name`, `level`, `patterns`, `summary`, and the
//! `[contract]` the round's schema change must meet) and a body that explains and prompts.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::contract::Contract;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Tool,
    Param,
    Desc,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Operator {
    pub id: String,
    pub name: String,
    pub level: Level,
    pub patterns: Vec<String>,
    pub summary: String,
    pub contract: Contract,
    /// The Markdown after the front matter.
    pub body: String,
    /// Where it came from, as shown to people ("operators/O05-flexible-expansion.md").
    pub file: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    id: String,
    name: String,
    level: Level,
    #[serde(default)]
    patterns: Vec<String>,
    summary: String,
    contract: Option<Contract>,
}

#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("{file}:1: no front matter: an operator file starts with a `+++` line")]
    NoFrontMatter { file: String },
    #[error("{file}:{line}: the front matter opened here is not closed by a `+++` line")]
    Unclosed { file: String, line: usize },
    #[error("{file}:{line}: {why}")]
    Toml {
        file: String,
        line: usize,
        why: String,
    },
    #[error("{file}:{line}: the front matter has no [contract] table")]
    NoContract { file: String, line: usize },
    #[error("{file}:{line}: operator id `{id}` is not `O` followed by a number")]
    BadId {
        file: String,
        line: usize,
        id: String,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{first} and {second} both define operator {id}")]
    Duplicate {
        id: String,
        first: String,
        second: String,
    },
}

/// The operators shipped with mcpevol, compiled in so the binary needs no files beside it.
const BUILTIN: [(&str, &str); 11] = [
    (
        "operators/O01-tool-addition.md",
        include_str!("../operators/O01-tool-addition.md"),
    ),
    (
        "operators/O02-tool-replacement.md",
        include_str!("../operators/O02-tool-replacement.md"),
    ),
    (
        "operators/O03-tool-removal.md",
        include_str!("../operators/O03-tool-removal.md"),
    ),
    (
        "operators/O04-tool-integration.md",
        include_str!("../operators/O04-tool-integration.md"),
    ),
    (
        "operators/O05-flexible-expansion.md",
        include_str!("../operators/O05-flexible-expansion.md"),
    ),
    (
        "operators/O06-constraint-mutation.md",
        include_str!("../operators/O06-constraint-mutation.md"),
    ),
    (
        "operators/O07-parameter-pruning.md",
        include_str!("../operators/O07-parameter-pruning.md"),
    ),
    (
        "operators/O08-interface-refactoring.md",
        include_str!("../operators/O08-interface-refactoring.md"),
    ),
    (
        "operators/O09-tool-description-update.md",
        include_str!("../operators/O09-tool-description-update.md"),
    ),
    (
        "operators/O10-parameter-description-update.md",
        include_str!("../operators/O10-parameter-description-update.md"),
    ),
    (
        "operators/O11-joint-description-update.md",
        include_str!("../operators/O11-joint-description-update.md"),
    ),
];

/// The 11 built-in operators, O1 to O11.
pub fn builtin() -> Vec<Operator> {
    let mut ops: Vec<Operator> = BUILTIN
        .iter()
        .map(|(file, text)| parse(text, file).unwrap_or_else(|e| panic!("built-in operator: {e}")))
        .collect();
    ops.sort_by_key(|o| number(&o.id));
    ops
}

/// The number of an operator id: 5 for "O5", "o5" and "O05".
pub fn number(id: &str) -> Option<u32> {
    let digits = id.strip_prefix(['O', 'o'])?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Reads one operator file; `file` names it in errors and in [`Operator::file`].
pub fn parse(text: &str, file: &str) -> Result<Operator, OperatorError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let is_fence = |l: &str| l.trim_end() == "+++";
    if !lines.next().is_some_and(is_fence) {
        return Err(OperatorError::NoFrontMatter { file: file.into() });
    }
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut offset = start;
    let mut end = None;
    for l in lines {
        if is_fence(l) {
            end = Some((offset, offset + l.len()));
            break;
        }
        offset += l.len();
    }
    let Some((fm_end, body_start)) = end else {
        return Err(OperatorError::Unclosed {
            file: file.into(),
            line: 1,
        });
    };
    let front = &text[start..fm_end];
    // Line numbers count from the file's first line; the front matter starts on line 2.
    let line_at = |byte: usize| 2 + front[..byte.min(front.len())].matches('\n').count();
    let fm: FrontMatter = toml::from_str(front).map_err(|e| OperatorError::Toml {
        file: file.into(),
        line: e.span().map_or(2, |s| line_at(s.start)),
        why: e.message().to_string(),
    })?;
    let line_of = |key: &str| {
        front
            .lines()
            .position(|l| l.trim_start().starts_with(key))
            .map_or(2, |i| i + 2)
    };
    let Some(contract) = fm.contract else {
        return Err(OperatorError::NoContract {
            file: file.into(),
            line: 1 + front.lines().count() + 1,
        });
    };
    if number(&fm.id).is_none() {
        return Err(OperatorError::BadId {
            file: file.into(),
            line: line_of("id"),
            id: fm.id,
        });
    }
    Ok(Operator {
        id: fm.id,
        name: fm.name,
        level: fm.level,
        patterns: fm.patterns,
        summary: fm.summary,
        contract,
        body: text[body_start..]
            .trim_start_matches(['\n', '\r'])
            .to_string(),
        file: file.into(),
    })
}

/// Every `*.md` operator file of a folder (a `README.md` is documentation, not an operator),
/// sorted by number; two files with the same id are an error.
pub fn load_dir(dir: &Path) -> Result<Vec<Operator>, OperatorError> {
    let read_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| OperatorError::Read { path, source }
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_err(dir))? {
        let path = entry.map_err(read_err(dir))?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|e| e == "md") && !name.eq_ignore_ascii_case("README.md") {
            paths.push(path);
        }
    }
    paths.sort();
    let mut ops = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(read_err(&path))?;
        ops.push(parse(&text, &path.display().to_string())?);
    }
    ops.sort_by_key(|o| number(&o.id));
    for pair in ops.windows(2) {
        if number(&pair[0].id) == number(&pair[1].id) {
            return Err(OperatorError::Duplicate {
                id: pair[1].id.clone(),
                first: pair[0].file.clone(),
                second: pair[1].file.clone(),
            });
        }
    }
    Ok(ops)
}

/// The operator with this id, however it is written ("O5", "o5", "O05").
pub fn find<'a>(ops: &'a [Operator], id: &str) -> Option<&'a Operator> {
    let n = number(id)?;
    ops.iter().find(|o| number(&o.id) == Some(n))
}

#[cfg(test)]
#[path = "operators_tests.rs"]
mod tests;
