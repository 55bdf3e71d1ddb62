//! Other arguments to try when a tool's schema-built call fails: values that earlier answers
//! named under a matching key (an id a creating tool returned, a name it was given), paths inside
//! the folders the server may use, the schema's other enum members, examples, defaults and
//! formats, and optional parameters set. Every list is in a fixed order: the same server gives
//! the same plan.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::args::value_for;
use super::plan::{Role, words};

/// Values kept from earlier answers and arguments, at most, newest kept.
const KNOWN_VALUES: usize = 400;
/// Characters of a value worth passing on (ids, names and paths are short).
const VALUE_CHARS: usize = 200;
/// Values tried per parameter from earlier answers.
const LEARNED_PER_PARAM: usize = 3;
/// Paths tried for a file property inside an object parameter.
const OBJECT_PATHS: usize = 3;
/// Stands for the fresh folder of each server start, as in launch settings (`{tmp}`).
pub const TMP: &str = crate::server::launch::TMP_PLACEHOLDER;

/// What earlier calls of a discovery taught: values by key, and files they made.
#[derive(Debug, Default, Clone)]
pub struct Known {
    /// (key as [`key`] writes it, value), oldest first.
    values: Vec<(String, Value)>,
    /// Paths (with `{tmp}`) that a successful call wrote.
    pub files: Vec<String>,
}

impl Known {
    /// Learns from a call that answered: the arguments it took (the server now knows them) and
    /// every keyed value of its answer's parts (JSON, or `key: value` lines).
    pub fn learn(
        &mut self,
        tool: &str,
        schema: &Value,
        arguments: &Map<String, Value>,
        parts: &[String],
    ) {
        let mut found = Vec::new();
        for (name, value) in arguments {
            walk(name, value, &mut found);
            let prop = &schema["properties"][name];
            if Role::of(tool) == Role::Creates
                && path_like(tool, name, prop)
                && let Some(path) = value.as_str().filter(|p| p.starts_with(TMP))
                && !self.files.iter().any(|f| f == path)
            {
                self.files.push(path.to_string());
            }
        }
        for part in parts {
            match embedded_json(part) {
                Some(json) => walk("", &json, &mut found),
                None => keyed_lines(part, &mut found),
            }
        }
        for (k, v) in found {
            if !self.values.iter().any(|(k2, v2)| *k2 == k && *v2 == v) {
                self.values.push((k, v));
            }
        }
        let over = self.values.len().saturating_sub(KNOWN_VALUES);
        self.values.drain(..over);
    }

    /// Values learned under a key that matches `param`, best match first, newest first.
    fn for_param(&self, param: &str) -> Vec<&Value> {
        let mut scored: Vec<(u8, usize, &Value)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, (k, v))| Some((match_score(param, k)?, i, v)))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut out: Vec<&Value> = Vec::new();
        for (_, _, v) in scored {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }
}

/// A key as matching compares it: lowercase letters and digits only.
fn key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How well a learned key fits a parameter: 3 the same name, 2 one ends with the other
/// (`noteId` and `id`, `entityName` and `name`), 1 the same last word; None otherwise.
fn match_score(param: &str, learned: &str) -> Option<u8> {
    let p = key(param);
    if p.is_empty() || learned.len() < 2 {
        return None;
    }
    if p == learned {
        return Some(3);
    }
    if p.ends_with(learned) || (p.len() >= 2 && learned.ends_with(&p)) {
        return Some(2);
    }
    let last = words(param).pop()?;
    (last.len() >= 2 && learned.ends_with(&last)).then_some(1)
}

fn walk(name: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| walk(k, v, out)),
        Value::Array(items) => items.iter().take(20).for_each(|v| walk(name, v, out)),
        Value::String(s) if !s.is_empty() && s.chars().count() <= VALUE_CHARS => {
            out.push((key(name), value.clone()))
        }
        Value::Number(_) => out.push((key(name), value.clone())),
        _ => {}
    }
}

/// The JSON a text part is or holds (from its first `{` or `[` to its last closing one).
fn embedded_json(part: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(part.trim()) {
        return (v.is_object() || v.is_array()).then_some(v);
    }
    let start = part.find(['{', '['])?;
    let end = part.rfind(['}', ']'])?;
    (end > start)
        .then(|| serde_json::from_str(&part[start..=end]).ok())
        .flatten()
}

/// `key: value` and `key = value` pairs of a text answer ("ID: 42", "Session id = s-1").
fn keyed_lines(part: &str, out: &mut Vec<(String, Value)>) {
    static LINE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?m)([A-Za-z][A-Za-z0-9_ -]{0,30}?)\s*[:=]\s*["'`]?([^\s"'`,;]{1,200})"#,
        )
        .expect("a valid pattern")
    });
    for caps in LINE.captures_iter(part).take(50) {
        let value = caps[2].trim_end_matches(['.', ')']).to_string();
        if !value.is_empty() {
            out.push((key(&caps[1]), json!(value)));
        }
    }
}

/// Whether a parameter names a file or folder: by its name, or its description.
pub fn path_like(tool: &str, name: &str, schema: &Value) -> bool {
    if !schema_is(schema, "string") || schema["format"].is_string() || schema["enum"].is_array() {
        return false;
    }
    let name_words = words(name);
    let has = |ws: &[String], list: &[&str]| ws.iter().any(|w| list.contains(&w.as_str()));
    if has(
        &name_words,
        &[
            "path",
            "file",
            "filename",
            "filepath",
            "dir",
            "directory",
            "folder",
            "cwd",
        ],
    ) {
        return true;
    }
    let about = words(schema["description"].as_str().unwrap_or(""));
    let tool_words = words(tool);
    let ends = &["source", "destination", "src", "dest", "from", "to"];
    (has(&about, &["path", "directory", "folder"]))
        || (has(&name_words, ends)
            && (has(&tool_words, &["file", "dir", "path", "folder"]) || has(&about, &["file"])))
}

/// Whether a parameter takes a web address: by its format, or its name.
fn url_like(name: &str, schema: &Value) -> bool {
    schema_is(schema, "string")
        && !schema["enum"].is_array()
        && (matches!(schema["format"].as_str(), Some("uri" | "url" | "iri"))
            || words(name)
                .iter()
                .any(|w| matches!(w.as_str(), "url" | "uri" | "href" | "link")))
}

/// Whether a parameter names a folder rather than a file.
fn folder_like(name: &str) -> bool {
    words(name)
        .iter()
        .any(|w| matches!(w.as_str(), "dir" | "directory" | "folder" | "cwd" | "root"))
}

/// Whether a parameter names something the call makes (a file to write, a destination).
fn names_new(tool: &str, name: &str) -> bool {
    Role::of(tool) == Role::Creates
        || words(name).iter().any(|w| {
            matches!(
                w.as_str(),
                "destination" | "dest" | "target" | "to" | "new" | "output" | "out"
            )
        })
}

fn schema_is(schema: &Value, ty: &str) -> bool {
    match &schema["type"] {
        Value::String(t) => t == ty,
        Value::Array(ts) => ts.iter().any(|t| t == ty),
        // Untyped: a string is what the schema-built call sends.
        _ => ty == "string" && schema.get("properties").is_none() && schema.get("items").is_none(),
    }
}

/// The folders a path may point into, and what earlier calls taught.
pub struct Context<'a> {
    pub folders: &'a [String],
    pub known: &'a Known,
}

/// Values worth trying for one parameter, strongest first; the first bool says whether the
/// first of them is a strong guess (learned from an answer, or a path inside a folder).
fn alternatives(tool: &str, name: &str, schema: &Value, ctx: &Context<'_>) -> (bool, Vec<Value>) {
    let mut out: Vec<Value> = Vec::new();
    let is_string = schema_is(schema, "string");
    let is_number = schema_is(schema, "integer") || schema_is(schema, "number");
    for v in ctx
        .known
        .for_param(name)
        .into_iter()
        .take(LEARNED_PER_PARAM)
    {
        match v {
            Value::String(s) if is_number => {
                if let Ok(n) = s.parse::<i64>() {
                    out.push(json!(n));
                }
            }
            Value::Number(n) if is_string => out.push(json!(n.to_string())),
            v if (is_string && v.is_string()) || (is_number && v.is_number()) => {
                out.push(v.clone())
            }
            _ => {}
        }
    }
    if path_like(tool, name, schema) {
        out.extend(paths(tool, name, schema, ctx));
    }
    // Offline, a web address answers only where it is a file on this machine: the sample page
    // (a browser opens it; a tool that fetches over HTTP only refuses it, as it did the web).
    if url_like(name, schema) {
        out.push(json!(format!(
            "file://{TMP}/{}/sample.html",
            crate::server::samples::SAMPLES_DIR
        )));
    }
    let strong = !out.is_empty();
    if let Some(members) = schema["enum"].as_array() {
        out.extend(members.iter().skip(1).cloned());
    }
    if let Some(examples) = schema["examples"].as_array() {
        out.extend(examples.iter().cloned());
    }
    for key in ["default", "const"] {
        if let Some(v) = schema.get(key) {
            out.push(v.clone());
        }
    }
    if is_string {
        out.extend(super::kinds::formatted(name, schema).map(|s| json!(s)));
    }
    if is_number && schema["minimum"].as_f64().is_none_or(|m| m <= 0.0) {
        out.push(json!(0));
    }
    out.extend(object_paths(tool, name, schema, ctx));
    if schema_is(schema, "array") && schema["items"].is_object() {
        let (item_strong, items) = alternatives(tool, name, &schema["items"], ctx);
        out.extend(items.into_iter().map(|v| json!([v])));
        return (strong || item_strong, dedup(out));
    }
    (strong, dedup(out))
}

/// Paths worth trying for a path parameter: files earlier calls made, a sample of the kind the
/// tool reads, the folders the server may use, a new file; for a folder, the folders first.
fn paths(tool: &str, name: &str, schema: &Value, ctx: &Context<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    let new_file = json!(format!("{TMP}/{}.txt", file_name(tool)));
    let files = ctx.known.files.iter().rev().map(|f| json!(f));
    let folders = ctx.folders.iter().map(|f| json!(f));
    let samples_dir = format!("{TMP}/{}", crate::server::samples::SAMPLES_DIR);
    if folder_like(name) {
        out.extend(folders);
        out.push(json!(samples_dir));
        out.push(json!(format!("{TMP}/{}", file_name(tool))));
    } else if names_new(tool, name) {
        out.push(new_file);
        out.extend(files);
        out.extend(folders);
    } else {
        // A file that exists, of the kind the tool's words ask for (`{tmp}/samples/`).
        let mut about = words(tool);
        about.extend(words(name));
        about.extend(words(schema["description"].as_str().unwrap_or("")));
        let samples = crate::server::samples::fitting(&about)
            .into_iter()
            .map(|f| json!(format!("{samples_dir}/{f}")));
        out.extend(files);
        out.extend(samples);
        out.extend(folders);
        out.push(new_file);
    }
    out
}

/// An object (say an array's item) with a file path among its properties: that path set to
/// what a path parameter of its own would get (`sources: [{path: "..."}]`).
fn object_paths(tool: &str, name: &str, schema: &Value, ctx: &Context<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    let Some(props) = schema["properties"]
        .as_object()
        .filter(|_| schema_is(schema, "object"))
    else {
        return out;
    };
    let base = value_for(schema, name);
    for (key, prop) in props.iter().filter(|(k, p)| path_like(tool, k, p)) {
        let (_, values) = alternatives(tool, key, prop, ctx);
        for value in values.into_iter().take(OBJECT_PATHS) {
            let mut object = base.as_object().cloned().unwrap_or_default();
            object.insert(key.clone(), value);
            out.push(Value::Object(object));
        }
    }
    out
}

fn file_name(tool: &str) -> String {
    let name: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("mcpevol-{name}")
}

fn dedup(values: Vec<Value>) -> Vec<Value> {
    let mut seen = HashSet::new();
    values
        .into_iter()
        .filter(|v| seen.insert(v.to_string()))
        .collect()
}

/// Argument sets to try after `plain` failed, best guess first, none equal to `plain`: the
/// strong guesses for every required parameter at once, then each parameter's other values on
/// top of those, then optional parameters set (all that the schema gives a value, then each
/// alone: "either url or html is needed").
pub fn candidates(
    tool: &str,
    schema: &Value,
    plain: &Map<String, Value>,
    ctx: &Context<'_>,
) -> Vec<Map<String, Value>> {
    let props = schema["properties"].as_object();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut base = plain.clone();
    let mut each: Vec<(String, Vec<Value>)> = Vec::new();
    for (name, prop) in props.into_iter().flatten() {
        if !required.contains(&name.as_str()) {
            continue;
        }
        let (strong, values) = alternatives(tool, name, prop, ctx);
        if strong && let Some(first) = values.first() {
            base.insert(name.clone(), first.clone());
        }
        each.push((name.clone(), values));
    }
    let mut out = vec![base.clone()];
    // One value of each parameter in turn, so that a budget of a few calls reaches every one.
    let longest = each.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
    for i in 0..longest {
        for (name, values) in &each {
            if let Some(v) = values.get(i) {
                let mut c = base.clone();
                c.insert(name.clone(), v.clone());
                out.push(c);
            }
        }
    }
    let optional: Vec<(&String, &Value)> = props
        .into_iter()
        .flatten()
        .filter(|(n, _)| !required.contains(&n.as_str()))
        .collect();
    let mut all = base.clone();
    for (name, prop) in &optional {
        if ["default", "const", "enum", "examples"]
            .iter()
            .any(|k| prop.get(*k).is_some())
        {
            all.insert(name.to_string(), value_for(prop, name));
        }
    }
    out.push(all);
    for (name, prop) in &optional {
        let (strong, values) = alternatives(tool, name, prop, ctx);
        let value = match values.first() {
            Some(v) if strong => v.clone(),
            _ => value_for(prop, name),
        };
        let mut c = base.clone();
        c.insert(name.to_string(), value);
        out.push(c);
    }
    let mut seen: HashSet<String> = HashSet::from([Value::Object(plain.clone()).to_string()]);
    out.into_iter()
        .filter(|c| seen.insert(Value::Object(c.clone()).to_string()))
        .collect()
}

/// The call with every number, optional ones too, at the smallest the schema allows (at least
/// 1): a tool that outlasted its time may take a count or a duration.
pub fn quick(schema: &Value, plain: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut out = plain.clone();
    for (name, prop) in schema["properties"].as_object()? {
        if schema_is(prop, "integer") || schema_is(prop, "number") {
            let min = prop["minimum"].as_f64().unwrap_or(1.0).max(1.0);
            out.insert(name.clone(), json!(min as i64));
        }
    }
    (out != *plain).then_some(out)
}

#[cfg(test)]
#[path = "candidates_tests.rs"]
mod tests;
