//! Prompt templates: Markdown with `{{name}}` placeholders from one fixed list, filled at run
//! time. Operators carry their mutation prompt in their files; the four shared prompts
//! (choosing an operator, feedback after a failed attempt, writing tests, planning a release)
//! are `operators/_*.md`.
//! HTML comments (`<!-- ... -->`) are notes for authors and never reach the model.

use std::collections::BTreeMap;

mod kind;
pub use kind::PromptKind;

use crate::contract::{AddedParams, Bounds, Contract};

/// Every placeholder a template may use. What each holds:
/// `server_name`; `tool_list` (the live tools, one line each); `targets` (the target tool
/// names); `snippets` (the targets' anchored source, every file involved); `previous_rounds`
/// (summaries of earlier rounds); `operator_id`; `operator_name`; `contract` (in words, see
/// [`contract_words`]); `error` (the feedback to fix); `schema` (a tool's input schema); `tool`
/// (a tool name); `examples`, `function`, `instructions` (an operator file's own sections);
/// `operators` (the menu of [`menu`]); `release_size` (the tools a release is drawn to touch, in
/// words); `target_mix` (the target share of each pattern, in words).
pub const PLACEHOLDERS: &[&str] = &[
    "server_name",
    "tool_list",
    "targets",
    "snippets",
    "previous_rounds",
    "operator_id",
    "operator_name",
    "contract",
    "error",
    "schema",
    "tool",
    "examples",
    "function",
    "instructions",
    "operators",
    "release_size",
    "target_mix",
];

/// The placeholders an operator's `## Prompt` fills from the file's own sections.
pub const SECTIONS: &[&str] = &["examples", "function", "instructions"];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("line {line}: unknown placeholder {{{{{name}}}}}; the known ones are {}", PLACEHOLDERS.join(", "))]
    Unknown { name: String, line: usize },
    #[error("line {line}: no value was given for placeholder {{{{{name}}}}}")]
    Missing { name: String, line: usize },
}

/// One `{{name}}` found in a template: byte range, name, 1-based line.
struct Found {
    start: usize,
    end: usize,
    name: String,
    line: usize,
}

/// Finds `{{name}}` (spaces inside the braces allowed). Anything else with braces is literal
/// text, which keeps JavaScript in examples (`{ a: { b: 1 }}`) safe.
fn scan(template: &str) -> Vec<Found> {
    let bytes = template.as_bytes();
    let mut found = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            line += 1;
        }
        if bytes[i] == b'{' && bytes.get(i + 1) == Some(&b'{') {
            let mut j = i + 2;
            while bytes.get(j) == Some(&b' ') {
                j += 1;
            }
            let name_start = j;
            while bytes
                .get(j)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                j += 1;
            }
            let name = &template[name_start..j];
            while bytes.get(j) == Some(&b' ') {
                j += 1;
            }
            let starts_well = name
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
            if starts_well && bytes.get(j) == Some(&b'}') && bytes.get(j + 1) == Some(&b'}') {
                found.push(Found {
                    start: i,
                    end: j + 2,
                    name: name.to_string(),
                    line,
                });
                i = j + 2;
                continue;
            }
        }
        i += 1;
    }
    found
}

/// The placeholders a template uses, in order, with their 1-based line numbers.
pub fn placeholders(template: &str) -> Vec<(String, usize)> {
    scan(template)
        .into_iter()
        .map(|f| (f.name, f.line))
        .collect()
}

/// Fills `{{name}}` placeholders in one pass (values are never scanned for placeholders).
/// Values the template does not use are ignored.
pub fn render(template: &str, values: &BTreeMap<&str, String>) -> Result<String, PromptError> {
    let mut out = String::with_capacity(template.len());
    let mut at = 0;
    for f in scan(template) {
        if !PLACEHOLDERS.contains(&f.name.as_str()) {
            return Err(PromptError::Unknown {
                name: f.name,
                line: f.line,
            });
        }
        let Some(value) = values.get(f.name.as_str()) else {
            return Err(PromptError::Missing {
                name: f.name,
                line: f.line,
            });
        };
        out.push_str(&template[at..f.start]);
        out.push_str(value);
        at = f.end;
    }
    out.push_str(&template[at..]);
    Ok(out)
}

/// Problems with a template's placeholders, as (1-based line, message), for a template of
/// `kind`; `first_line` is the line of the file the template starts on.
pub fn check_template(kind: PromptKind, template: &str, first_line: usize) -> Vec<(usize, String)> {
    let where_ = kind.file_name().unwrap_or("an operator's prompt sections");
    let mut problems = Vec::new();
    for (name, line) in placeholders(template) {
        let line = first_line + line - 1;
        if !PLACEHOLDERS.contains(&name.as_str()) {
            problems.push((
                line,
                format!(
                    "unknown placeholder {{{{{name}}}}}; the known ones are {}",
                    PLACEHOLDERS.join(", ")
                ),
            ));
        } else if !kind.supplied().contains(&name.as_str()) {
            problems.push((
                line,
                format!(
                    "placeholder {{{{{name}}}}} has no value in {where_}; available: {}",
                    kind.supplied().join(", ")
                ),
            ));
        }
    }
    if let Some(need) = kind.needs()
        && !placeholders(template).iter().any(|(n, _)| n == need)
    {
        problems.push((
            first_line,
            format!("{where_} never uses {{{{{need}}}}}, so the model would not see it"),
        ));
    }
    problems
}

/// A `## Title` section of a Markdown body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: String,
    /// The 1-based line of the heading.
    pub line: usize,
    /// The text under the heading with comments removed, as the model gets it.
    pub text: String,
    /// The text under the heading with comments blanked to spaces, so that line numbers hold.
    pub raw: String,
}

/// The `## ` sections of a Markdown text, in order. A section ends at the next `# ` or `## `
/// heading outside a code fence; deeper headings (`###`) belong to it, so a prompt can have its
/// own headings.
pub fn sections(markdown: &str) -> Vec<Section> {
    let blanked = blank_comments(markdown);
    let mut out: Vec<Section> = Vec::new();
    let mut current: Option<(String, usize, usize)> = None; // title, heading line, body start
    let mut in_fence = false;
    let mut offset = 0;
    let close = |cur: Option<(String, usize, usize)>, end: usize, out: &mut Vec<Section>| {
        if let Some((title, line, start)) = cur {
            let raw = blanked[start..end].to_string();
            out.push(Section {
                title,
                line,
                text: clean(&markdown[start..end], &raw),
                raw,
            });
        }
    };
    for (n, l) in blanked.split_inclusive('\n').enumerate() {
        let t = l.trim_end();
        if t.trim_start().starts_with("```") || t.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence && (t.starts_with("## ") || t == "##" || t.starts_with("# ")) {
            close(current.take(), offset, &mut out);
            if let Some(title) = t.strip_prefix("## ") {
                current = Some((title.trim().to_string(), n + 1, offset + l.len()));
            }
        }
        offset += l.len();
    }
    close(current, blanked.len(), &mut out);
    out
}

/// A text with every `<!-- ... -->` byte turned into a space (newlines kept), so that offsets
/// and line numbers stay those of the original. An unclosed comment runs to the end.
pub fn blank_comments(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut i = 0;
    while let Some(start) = text[i..].find("<!--").map(|s| s + i) {
        let end = text[start + 4..]
            .find("-->")
            .map_or(text.len(), |e| start + 4 + e + 3);
        for b in &mut bytes[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end;
    }
    // Only ASCII bytes were written, over whole characters' bytes, so this stays UTF-8.
    String::from_utf8(bytes).expect("blanking keeps UTF-8")
}

/// The text a model gets from `original` and its [`blank_comments`]: lines that held only a
/// comment disappear (with the blank line they would leave doubled), and blank lines at both
/// ends go.
pub fn clean(original: &str, blanked: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut dropped = false;
    for (o, b) in original.lines().zip(blanked.lines()) {
        let after_blank = lines.last().is_some_and(|l| l.trim().is_empty());
        if o != b && b.trim().is_empty() {
            dropped = true;
        } else if dropped && after_blank && b.trim().is_empty() {
            // A dropped comment between two blank lines leaves one blank line, not two.
        } else {
            lines.push(if o == b { o } else { b.trim_end() });
            dropped = false;
        }
    }
    let text = lines.join("\n");
    let text = text.trim_end();
    let start = text
        .lines()
        .take_while(|l| l.trim().is_empty())
        .map(|l| l.len() + 1)
        .sum::<usize>()
        .min(text.len());
    text[start..].to_string()
}

/// The four shared prompts, comments removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompts {
    pub select: String,
    pub feedback: String,
    pub tests: String,
    pub release: String,
}

impl Prompts {
    /// The template of a shared kind; `None` for [`PromptKind::Mutation`], which operators hold.
    pub fn get(&self, kind: PromptKind) -> Option<&str> {
        match kind {
            PromptKind::Select => Some(&self.select),
            PromptKind::Feedback => Some(&self.feedback),
            PromptKind::Tests => Some(&self.tests),
            PromptKind::Release => Some(&self.release),
            PromptKind::Mutation => None,
        }
    }

    pub(crate) fn set(&mut self, kind: PromptKind, text: String) {
        match kind {
            PromptKind::Select => self.select = text,
            PromptKind::Feedback => self.feedback = text,
            PromptKind::Tests => self.tests = text,
            PromptKind::Release => self.release = text,
            PromptKind::Mutation => {}
        }
    }
}

/// The shared prompt files as written in `operators/`, with their paths, compiled in.
pub const BUILTIN_FILES: [(PromptKind, &str, &str); 4] = [
    (
        PromptKind::Select,
        "operators/_select.md",
        include_str!("../../../operators/_select.md"),
    ),
    (
        PromptKind::Feedback,
        "operators/_feedback.md",
        include_str!("../../../operators/_feedback.md"),
    ),
    (
        PromptKind::Tests,
        "operators/_tests.md",
        include_str!("../../../operators/_tests.md"),
    ),
    (
        PromptKind::Release,
        "operators/_release.md",
        include_str!("../../../operators/_release.md"),
    ),
];

/// The shared prompts shipped with mcpevol.
pub fn builtin_prompts() -> Prompts {
    let text = |i: usize| {
        let t = BUILTIN_FILES[i].2;
        clean(t, &blank_comments(t))
    };
    Prompts {
        select: text(0),
        feedback: text(1),
        tests: text(2),
        release: text(3),
    }
}

/// The `{{contract}}`: what the live tool list must show after the round, one rule a line.
pub fn contract_words(c: &Contract) -> String {
    let mut rules = Vec::new();
    match &c.allow {
        Some(kinds) => {
            let kinds: Vec<String> = kinds
                .iter()
                .map(|k| format!("{k} ({})", gloss(k.as_str())))
                .collect();
            rules.push(format!(
                "Only these kinds of change may appear: {}.",
                kinds.join("; ")
            ));
        }
        None => rules.push("Any kind of change may appear.".to_string()),
    }
    for count in &c.require {
        rules.push(format!("There must be {count}."));
    }
    if !c.require_any.is_empty() {
        let groups: Vec<String> = c
            .require_any
            .iter()
            .map(|g| {
                g.iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .collect();
        rules.push(format!("There must be either {}.", groups.join(", or ")));
    }
    if let Some(t) = c.tools {
        rules.push(format!(
            "The changes touch {} (a renamed tool counts once).",
            tools_words(t)
        ));
    }
    match c.added_params {
        Some(AddedParams::Optional) => rules.push("Every added parameter is optional.".to_string()),
        Some(AddedParams::Required) => rules.push("Every added parameter is required.".to_string()),
        None => {}
    }
    if c.targets_only {
        rules.push(
            "No tool other than the targets changes; only a newly added tool is exempt."
                .to_string(),
        );
    }
    rules
        .iter()
        .map(|r| format!("- {r}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn tools_words(b: Bounds) -> String {
    let n = match (b.min, b.max) {
        (min, Some(max)) if min == max => format!("exactly {min}"),
        (0, Some(max)) => format!("at most {max}"),
        (min, Some(max)) => format!("{min} to {max}"),
        (min, None) => format!("at least {min}"),
    };
    format!(
        "{n} tool{}",
        if b.max == Some(1) && b.min <= 1 {
            ""
        } else {
            "s"
        }
    )
}

/// What a change kind means, for a model that has not read `schema.rs`.
fn gloss(kind: &str) -> &'static str {
    match kind {
        "tool-added" => "a new tool is listed",
        "tool-removed" => "a tool is no longer listed",
        "tool-renamed" => "a tool is listed under a new name with the same schema",
        "tool-description-changed" => "a tool's description text differs",
        "param-added" => "an input parameter appears",
        "param-removed" => "an input parameter disappears",
        "param-description-changed" => "a parameter's description text differs",
        "param-constraint-changed" => "bounds, lengths, patterns, enums or formats differ",
        "param-required-changed" => "a parameter becomes required or optional",
        "param-type-changed" => "a parameter's type differs",
        "param-default-changed" => "the value a parameter takes when it is not sent differs",
        "tool-title-changed" => "the title a client shows for a tool differs",
        "tool-annotations-changed" => {
            "a tool's behaviour hints (readOnlyHint, destructiveHint...) differ"
        }
        "tool-output-schema-changed" => "the schema of a tool's structured result differs",
        "tool-meta-changed" => "a tool's _meta differs",
        "tool-definition-changed" => "another field of a tool's definition differs",
        "tool-listed-twice" => "a tool is listed more than once",
        _ => "a schema change",
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
