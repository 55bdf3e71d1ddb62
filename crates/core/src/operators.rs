//! Operators, the kinds of change one round makes (Table 11 of MCPEvol-Bench), kept as data:
//! Markdown files with TOML front matter (`id`, `name`, `level`, `patterns`, `summary`, and the
//! `[contract]` the round's schema change must meet) and a body that explains and prompts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::contract::Contract;
use crate::prompt::{self, PromptError, Prompts};

mod id;
mod lint;
mod template;

pub use id::{Builtin, OperatorId};
pub use lint::{CheckProblem, check_path};
pub use template::template;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Tool,
    Param,
    Desc,
}

impl Level {
    /// As written in operator files: `TOOL`, `PARAM`, `DESC`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Tool => "TOOL",
            Level::Param => "PARAM",
            Level::Desc => "DESC",
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Operator {
    pub id: OperatorId,
    pub name: String,
    pub level: Level,
    pub patterns: Vec<crate::schema::Pattern>,
    pub summary: String,
    pub contract: Contract,
    /// The Markdown after the front matter.
    pub body: String,
    /// Where it came from, as shown to people ("operators/O05-flexible-expansion.md").
    pub file: String,
    /// The `## Prompt` section: the mutation prompt template, comments removed.
    pub prompt: String,
    /// The `## Examples` section (empty when absent): `{{examples}}` in the prompt.
    pub examples: String,
    /// The `## Function` section: `{{function}}` in the prompt.
    pub function: String,
    /// The `## Instructions` section: `{{instructions}}` in the prompt.
    pub instructions: String,
}

impl Operator {
    /// Its line in the menu a model chooses from: `- O5 Flexible Expansion (PARAM): ...`.
    pub fn menu_line(&self) -> String {
        format!(
            "- {} {} ({}): {}",
            self.id,
            self.name,
            self.level.as_str(),
            self.summary
        )
    }

    /// The built-in operator this file defines, if it is one.
    pub fn builtin(&self) -> Option<Builtin> {
        self.id.builtin()
    }

    /// The mutation prompt: the `## Prompt` template filled with `values`, its `{{examples}}`,
    /// `{{function}}` and `{{instructions}}` with the file's own sections (themselves filled
    /// with `values`). `operator_id`, `operator_name` and `contract` default to this operator's.
    pub fn mutation_prompt(&self, values: &BTreeMap<&str, String>) -> Result<String, PromptError> {
        let mut all = values.clone();
        all.entry("operator_id")
            .or_insert_with(|| self.id.to_string());
        all.entry("operator_name")
            .or_insert_with(|| self.name.clone());
        all.entry("contract")
            .or_insert_with(|| prompt::contract_words(&self.contract));
        // Sections are filled before they become values, so a section cannot include one.
        let filled = [
            ("examples", prompt::render(&self.examples, &all)?),
            ("function", prompt::render(&self.function, &all)?),
            ("instructions", prompt::render(&self.instructions, &all)?),
        ];
        all.extend(filled);
        prompt::render(&self.prompt, &all)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    id: String,
    name: String,
    level: Level,
    #[serde(default)]
    patterns: Vec<crate::schema::Pattern>,
    summary: String,
    contract: Option<Contract>,
}

#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    /// Every problem found, one `file:line: message` a line.
    #[error("{}", lines(.0))]
    Invalid(Vec<CheckProblem>),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn lines(problems: &[CheckProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The 11 built-in operators, O1 to O11, from the files compiled into the binary.
pub fn builtin() -> Vec<Operator> {
    Builtin::ALL
        .iter()
        .map(|b| {
            let (file, text) = b.file();
            parse(text, file).unwrap_or_else(|e| panic!("built-in operator: {e}"))
        })
        .collect()
}

/// Whether an id is well formed: a letter, then letters, digits, `_` or `-` ("U1", "X-myop").
pub fn valid_id(id: &str) -> bool {
    let mut bytes = id.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Reads one operator file; `file` names it in errors and in [`Operator::file`]. Every problem
/// of the file is reported, not just the first.
pub fn parse(text: &str, file: &str) -> Result<Operator, OperatorError> {
    let read = lint::read_operator(text, file);
    match read.op {
        Some(op) if read.problems.is_empty() => Ok(op),
        _ => Err(OperatorError::Invalid(read.problems)),
    }
}

/// The operators of a folder (`*.md`; `README.md` is documentation and `_*.md` are shared
/// prompts, checked but not returned): numbered ids first by number, then the others by id.
/// Two files with the same id are an error.
pub fn load_dir(dir: &Path) -> Result<Vec<Operator>, OperatorError> {
    let files = lint::md_files(dir).map_err(|source| OperatorError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let (loaded, problems) = lint::gather(&files);
    if !problems.is_empty() {
        return Err(OperatorError::Invalid(problems));
    }
    let mut ops: Vec<Operator> = loaded.into_iter().map(|l| l.op).collect();
    ops.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(ops)
}

/// The built-in operators, then the user operators of `extra_dirs` sorted by id. A user id
/// must not be a built-in one; a folder's copy of a built-in file (the `operators/` folder of
/// this repository) is the built-in itself and is not loaded twice.
pub fn load_all(extra_dirs: &[PathBuf]) -> Result<Vec<Operator>, OperatorError> {
    let mut files = Vec::new();
    for dir in extra_dirs {
        files.extend(lint::md_files(dir).map_err(|source| OperatorError::Read {
            path: dir.clone(),
            source,
        })?);
    }
    let (loaded, problems) = lint::gather(&files);
    if !problems.is_empty() {
        return Err(OperatorError::Invalid(problems));
    }
    let mut user: Vec<Operator> = loaded
        .into_iter()
        .filter(|l| !l.is_builtin)
        .map(|l| l.op)
        .collect();
    user.sort_by(|a, b| a.id.cmp(&b.id));
    let mut ops = builtin();
    ops.extend(user);
    Ok(ops)
}

/// The shared prompts: the built-in ones, each replaced by a `_select.md`, `_feedback.md` or
/// `_tests.md` found in `extra_dirs` (a later folder wins).
pub fn load_prompts(extra_dirs: &[PathBuf]) -> Result<Prompts, OperatorError> {
    let mut prompts = prompt::builtin_prompts();
    for dir in extra_dirs {
        for kind in prompt::PromptKind::SHARED {
            let path = dir.join(kind.file_name().unwrap_or_default());
            if !path.is_file() {
                continue;
            }
            let text = std::fs::read_to_string(&path).map_err(|source| OperatorError::Read {
                path: path.clone(),
                source,
            })?;
            let problems = lint::read_prompt(kind, &text, &path.display().to_string());
            if !problems.is_empty() {
                return Err(OperatorError::Invalid(problems));
            }
            prompts.set(kind, prompt::clean(&text, &prompt::blank_comments(&text)));
        }
    }
    Ok(prompts)
}

/// The operator with this id.
pub fn find<'a>(ops: &'a [Operator], id: &OperatorId) -> Option<&'a Operator> {
    ops.iter().find(|o| o.id == *id)
}

#[cfg(test)]
#[path = "operators_tests.rs"]
mod tests;
