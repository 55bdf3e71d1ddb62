//! What is known to be true about a tool, read from what anchoring found: its parameters with
//! their schema (types, bounds, defaults, allowed values), what its handler's code shows it
//! returns, its declared output, and the tools whose names share a word with it.

use std::sync::LazyLock;

use regex::Regex;

use super::super::words;
use mcpevol_core::inventory::{ParamShape, Tool};

/// Everything a sentence about one tool may use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolFacts {
    pub name: String,
    /// The description as it stands ("" when there is none).
    pub description: String,
    pub params: Vec<ParamFacts>,
    pub returns: Returns,
    pub related: Vec<Related>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamFacts {
    pub name: String,
    /// A JSON-schema type name a reader knows (`string`, `integer`, ...), when one is known.
    pub ty: Option<String>,
    pub required: bool,
    pub description: Option<String>,
    pub shape: ParamShape,
}

/// What the handler's code shows about its answer. Each flag is set only when the code says
/// so in a form that cannot mean anything else.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Returns {
    /// A text part built as `text: JSON.stringify(...)`; the object's keys when written out.
    pub json: Option<Vec<String>>,
    /// Text parts built with `.join("\n")` or `.join(", ")`.
    pub joined: Option<Joined>,
    pub image: bool,
    pub audio: bool,
    /// The keys of the declared output schema (the structured result).
    pub structured: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    Lines,
    Commas,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    pub name: String,
    /// The first sentence of its description, without its final stop.
    pub summary: String,
}

impl ParamFacts {
    /// Whether the schema says anything beyond the type: bounds, a default, values, a format,
    /// the shape of items.
    pub fn has_shape(&self) -> bool {
        let s = &self.shape;
        s.min.is_some()
            || s.max.is_some()
            || s.default.is_some()
            || !s.values.is_empty()
            || s.format.is_some()
            || s.items.is_some()
            || !s.keys.is_empty()
    }
}

/// Type names worth saying; anything else a zod chain ends in (`optional`, `union`, `any`)
/// says nothing to a reader.
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "enum", "date", "bigint",
];

/// Words too common in tool names to make two tools related.
const COMMON_WORDS: &[&str] = &[
    "get", "set", "list", "create", "update", "delete", "remove", "add", "read", "write", "search",
    "find", "fetch", "run", "do", "make", "new", "show", "by", "the", "a", "an", "of", "to", "for",
    "and", "or", "tool", "tools", "v1", "v2", "alias", "compat", "all", "info", "data", "item",
    "items", "my", "with", "from", "is", "on", "in",
];

/// The facts of `tool`: `handler` is the source of its handler when that is its own (not a
/// router shared with other tools).
pub fn of_tool(tool: &Tool, all: &[Tool], handler: Option<&str>) -> ToolFacts {
    let params = tool
        .params
        .iter()
        .map(|p| ParamFacts {
            name: p.name.clone(),
            ty: p
                .ty
                .as_deref()
                .map(|t| {
                    if p.shape.integer && t == "number" {
                        "integer"
                    } else {
                        t
                    }
                })
                .filter(|t| TYPES.contains(t))
                .map(str::to_string),
            required: p.required,
            description: p.description.clone(),
            shape: p.shape.clone(),
        })
        .collect();
    let mut returns = handler.map(returns_of).unwrap_or_default();
    returns.structured = tool.sites.output_keys.clone();
    ToolFacts {
        name: tool.name.clone(),
        description: tool.description.clone().unwrap_or_default(),
        params,
        returns,
        related: related(tool, all),
    }
}

/// Whether `handler` (a span) is also the handler of another tool: then what it returns is
/// not this tool's alone.
pub fn shared_handler(tool: &Tool, all: &[Tool]) -> bool {
    all.iter()
        .any(|t| t.name != tool.name && t.handler.is_some() && t.handler == tool.handler)
}

static JSON_TEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\btext\s*:\s*JSON\.stringify\(").expect("compiles"));
static JOINED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\btext\s*:\s*[^,;{}]*\.join\(\s*["'](\\n|, )["']\s*\)\s*[,}]"#).expect("compiles")
});
static KIND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\btype\s*:\s*["'](image|audio)["']"#).expect("compiles"));

/// What the handler's source shows it answers with.
pub fn returns_of(handler: &str) -> Returns {
    let mut r = Returns::default();
    if let Some(m) = JSON_TEXT.find(handler) {
        r.json = Some(object_keys(&handler[m.end()..]).unwrap_or_default());
    }
    let joins: Vec<&str> = JOINED
        .captures_iter(handler)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str())
        .collect();
    // Only when every joined text part joins the same way.
    if let Some(first) = joins.first()
        && joins.iter().all(|j| j == first)
    {
        r.joined = Some(if *first == ", " {
            Joined::Commas
        } else {
            Joined::Lines
        });
    }
    for c in KIND.captures_iter(handler) {
        match &c[1] {
            "image" => r.image = true,
            _ => r.audio = true,
        }
    }
    r
}

/// The keys of an object literal that `text` starts with (after optional spaces), when every
/// entry is a plain key (no spread, no computed key).
fn object_keys(text: &str) -> Option<Vec<String>> {
    let body = text.trim_start().strip_prefix('{')?;
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let mut entry = String::new();
    let mut quote: Option<char> = None;
    for c in body.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            if depth == 0 {
                entry.push(c);
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => {
                quote = Some(c);
                if depth == 0 {
                    entry.push(c);
                }
            }
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' if depth == 0 => {
                keys.push(entry_key(&entry)?);
                keys.retain(|k: &String| !k.is_empty());
                return (!keys.is_empty()).then_some(keys);
            }
            '}' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => keys.push(entry_key(&std::mem::take(&mut entry))?),
            c if depth == 0 => entry.push(c),
            _ => {}
        }
    }
    None
}

/// The key of one object entry as written before its colon (or a shorthand); "" for nothing.
fn entry_key(entry: &str) -> Option<String> {
    let e = entry.trim();
    if e.is_empty() {
        return Some(String::new());
    }
    if e.starts_with("...") || e.starts_with('[') {
        return None;
    }
    let key = e.split(':').next()?.trim().trim_matches(['"', '\'']);
    key.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '-')
        .then(|| key.to_string())
}

/// Other tools whose names share a distinctive word with this one, most shared first.
fn related(tool: &Tool, all: &[Tool]) -> Vec<Related> {
    let mine: Vec<String> = distinctive(&tool.name);
    let mut found: Vec<(usize, Related)> = all
        .iter()
        .filter(|t| t.name != tool.name)
        // Its own aliases and what it is an alias of are not other tools.
        .filter(|t| !t.name.starts_with(&tool.name) && !tool.name.starts_with(&t.name))
        .filter_map(|t| {
            let shared = distinctive(&t.name)
                .iter()
                .filter(|w| mine.contains(w))
                .count();
            let summary = first_sentence(t.description.as_deref()?)?;
            (shared > 0).then(|| {
                (
                    shared,
                    Related {
                        name: t.name.clone(),
                        summary,
                    },
                )
            })
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    found.into_iter().map(|(_, r)| r).collect()
}

fn distinctive(name: &str) -> Vec<String> {
    words::words(name)
        .into_iter()
        .filter(|w| w.len() > 2 && !COMMON_WORDS.contains(&w.as_str()))
        .collect()
}

/// The first sentence of a description, if it is a short, plain one: no line breaks inside,
/// balanced brackets and quotes, 3 to 25 words.
pub fn first_sentence(text: &str) -> Option<String> {
    let text = text.trim();
    let end = text
        .match_indices(['.', '!', '?', '\n'])
        .map(|(i, _)| i)
        .find(|&i| {
            text[i..].starts_with('\n')
                || text[i + 1..].is_empty()
                || text[i + 1..].starts_with(char::is_whitespace)
        })
        .unwrap_or(text.len());
    let s = text[..end].trim();
    let n = s.split_whitespace().count();
    let balanced = ['`', '"'].iter().all(|q| s.matches(*q).count() % 2 == 0)
        && s.matches('(').count() == s.matches(')').count()
        && s.matches('[').count() == s.matches(']').count();
    ((3..=25).contains(&n) && balanced && !s.ends_with(':')).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handler_shows_json_keys_joins_and_images_only_in_plain_forms() {
        let r = returns_of(
            "async ({ a }) => ({ content: [{ type: \"text\", text: JSON.stringify({ total, items: list.map((x) => ({ x })), \"next-page\": n }, null, 2) }] })",
        );
        assert_eq!(
            r.json,
            Some(vec!["total".into(), "items".into(), "next-page".into()])
        );
        let r = returns_of("return { content: [{ type: 'text', text: JSON.stringify(result) }] }");
        assert_eq!(r.json, Some(vec![]));
        let r = returns_of("text: Object.keys(CITIES).join(\", \") }");
        assert_eq!(r.joined, Some(Joined::Commas));
        let r = returns_of("text: a.join(\"\\n\") }, { text: b.join(\", \") }");
        assert_eq!(r.joined, None, "two ways of joining say nothing");
        assert!(returns_of("{ type: \"image\", data, mimeType }").image);
        assert_eq!(
            returns_of("return { content: [{ type: \"text\", text }] }"),
            Returns::default()
        );
    }

    #[test]
    fn a_first_sentence_is_taken_only_when_it_is_plain() {
        assert_eq!(
            first_sentence("Open specific nodes by name. Then more.").as_deref(),
            Some("Open specific nodes by name")
        );
        assert_eq!(
            first_sentence("v1.2 of the tool does things"),
            Some("v1.2 of the tool does things".into())
        );
        assert_eq!(first_sentence("Echo"), None);
        assert_eq!(first_sentence("Use (this one"), None);
        assert_eq!(first_sentence("When to use:\n- x"), None);
    }
}
