//! A single form of a tool that takes a list (`create_entities` taking `entities`): a new tool
//! named with the last word in the singular (`create_entity`) that takes one entry of the list,
//! its fields as arguments (or the entry itself as one argument, for a list of strings or
//! numbers), and runs the tool on a list of that one entry. Written where the tool is
//! registered with its zod shape and handler in one call (the copy's shape and handler
//! rewritten), or listed by a JSON definition and routed by name (the router's wrapper passes
//! the entry on as a list).

use mcpevol_anchor::grammar::Lang;
use tree_sitter::Node;

use super::super::MutateError;
use super::super::around::Around;
use super::super::batch_form::{self, BatchSites};
use super::super::dialect::dialect_of;
use super::super::dialect::handler_dialect;
use super::super::prose::Note;
use super::super::registration_call;
use super::super::splice::{find_word, indent_at, js_string};
use super::super::wrap;
use super::listed_batch::{self, Listed};
use super::{Draft, cut};
use mcpevol_core::inventory::{Param, ParamSite, Span, Style, Tool};
use mcpevol_core::words;
use mcpevol_oracle::validate::Effect;

/// The first words of names whose list is of independent entries, each of which could be
/// handled alone (`create_entities`, `delete_observations`); not `align_elements` or
/// `compare_files`, whose entries only mean something together.
const EACH_VERBS: &[&str] = &[
    "add", "archive", "close", "create", "delete", "describe", "download", "fetch", "get",
    "insert", "load", "lock", "mark", "open", "read", "remove", "save", "show", "tag", "unlock",
    "update", "upload", "view", "write",
];

/// Where a single form is written from, as its check found it.
pub(super) struct SingleForm<'t> {
    sites: Sites<'t>,
    /// The single form's name.
    name: String,
    /// The list parameter and its site.
    param: &'t ParamSite,
    /// The entry's noun, in the singular (`entity`).
    noun: String,
}

enum Sites<'t> {
    Inline(BatchSites<'t>),
    Listed(Listed<'t>),
    /// A `registerTool` or `tool` call whose arguments read a definition declared elsewhere
    /// (`CURRENT_TIME.schema`), with its handler written in it: the call's arguments are read
    /// when the form is written (see `registration_call`).
    Call {
        reg: &'t Span,
        zod: &'t str,
    },
}

/// What a single form of a tool is: its name, the tool's list parameter, and the noun of
/// one entry, in the singular (`entity`).
pub(super) struct ListTool<'t> {
    pub(super) name: String,
    pub(super) list: &'t Param,
    pub(super) noun: String,
}

/// Whether `tool` can have a single form in any style: a name of a verb that acts on each
/// entry alone and a plural noun, free in the singular, and one required parameter that is a
/// list of objects or strings.
pub(super) fn list_tool<'t>(tool: &'t Tool, all: &[Tool]) -> Result<ListTool<'t>, &'static str> {
    let name = words::singular_name(&tool.name)
        .ok_or("its name does not end in a plural, so it has no single form")?;
    let all_words = words::words(&tool.name);
    if !all_words
        .first()
        .is_some_and(|w| EACH_VERBS.contains(&w.as_str()))
    {
        return Err("its verb does not act on each entry of a list alone");
    }
    // `read_multiple_files` has no `read_multiple_file`: the word that says several stays.
    if (all_words.iter()).any(|w| ["multiple", "many", "bulk", "batch"].contains(&w.as_str())) {
        return Err("its name says it takes several, and a name for one would still say so");
    }
    if all.iter().any(|t| t.name == name) {
        return Err("a tool already has the single form's name");
    }
    // A declared output schema is copied with the registration: the single form answers as
    // the tool does, structured content and all.
    let [list] = &tool
        .params
        .iter()
        .filter(|p| p.required)
        .collect::<Vec<_>>()[..]
    else {
        return Err("it does not take exactly one required parameter");
    };
    if list.ty.as_deref() != Some("array") {
        return Err("its one required parameter is not a list");
    }
    // `add_numbers` sums its list: numbers are taken together, and one alone means nothing.
    if matches!(list.shape.items.as_deref(), Some("number" | "integer")) {
        return Err("its list is of numbers, which a tool takes together (a sum, a mean)");
    }
    let noun = words::singular(all_words.last().expect("a name has words"))
        .expect("a singular name has a singular last word");
    Ok(ListTool { name, list, noun })
}

/// The sites a single form of `tool` is written from, or why it can have none.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<SingleForm<'t>, &'static str> {
    let ListTool { name, list, noun } = list_tool(tool, all)?;
    let param = (tool.sites.schema.as_ref())
        .and_then(|s| s.params.iter().find(|p| p.name == list.name))
        .ok_or("its list parameter is not written out")?;
    let sites = match (batch_form::inline_sites(tool), listed_batch::listed(tool)) {
        (Ok(inline), _) => Sites::Inline(inline),
        (_, Ok(listed)) => Sites::Listed(listed),
        (Err(why), Err(_)) => call_sites(tool).ok_or(why)?,
    };
    Ok(SingleForm {
        sites,
        name,
        param,
        noun,
    })
}

/// A registration call with a description and a zod schema whose spelling is known, to read
/// the arguments of when the form is written.
fn call_sites(tool: &Tool) -> Option<Sites<'_>> {
    let reg = tool.sites.registration.as_ref()?;
    tool.handler.as_ref()?;
    let zod = tool.sites.schema.as_ref()?.zod.as_deref()?;
    tool.sites.description.as_ref()?;
    let by_call = tool.style == Style::Register && tool.sites.routes.is_empty();
    (by_call && dialect_of(&reg.file).writes_batches()).then_some(Sites::Call { reg, zod })
}

/// What one entry of a list parameter is, read from its schema's text: an object whose fields
/// the single form takes (the object's own text: a zod shape or a JSON schema), or a plain
/// value it takes as one argument (its schema's text).
enum Entry {
    Fields(String),
    Value(String),
}

/// The entry schema of the list whose schema is `value` (a zod expression or a JSON schema
/// object in JavaScript), or None where it is not written out.
fn entry(value: &str, zod: Option<&str>) -> Option<Entry> {
    let src = format!("({value})");
    let tree = mcpevol_anchor::parse(&src, Lang::TypeScript)?;
    let text = |n: Node| src[n.byte_range()].to_string();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        match (zod, n.kind()) {
            // `z.array(ITEM)`: the first argument of the call whose callee ends in `.array`.
            (Some(_), "call_expression") => {
                let callee = n.child_by_field_name("function").map(text);
                if callee.is_some_and(|c| c.ends_with(".array")) {
                    let item = n.child_by_field_name("arguments")?.named_child(0)?;
                    return Some(zod_entry(item, &src));
                }
            }
            // `items: {...}` in the JSON schema.
            (None, "pair") => {
                let key = n.child_by_field_name("key").map(text)?;
                if key.trim_matches(['"', '\'']) == "items" {
                    let item = n.child_by_field_name("value")?;
                    let object = text(item).contains("properties");
                    return Some(match object && item.kind() == "object" {
                        true => Entry::Fields(text(item)),
                        false => Entry::Value(text(item)),
                    });
                }
            }
            _ => {}
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    None
}

/// A zod entry: `z.object({ ... })` gives its shape, anything else is a value.
fn zod_entry(item: Node, src: &str) -> Entry {
    if item.kind() == "call_expression"
        && let Some(callee) = item.child_by_field_name("function")
        && src[callee.byte_range()].ends_with(".object")
        && let Some(shape) = item
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        && shape.kind() == "object"
    {
        return Entry::Fields(src[shape.byte_range()].to_string());
    }
    Entry::Value(src[item.byte_range()].to_string())
}

/// The argument the single form names a plain entry by: the list's name in the singular
/// (`names`: `name`), or `value`.
pub(super) fn key_for(list: &str) -> String {
    let words = words::words(list);
    match words.last().and_then(|w| words::singular(w)) {
        Some(_) => words::singular_name(list).unwrap_or_else(|| list.to_string()),
        None => "value".to_string(),
    }
}

/// The single form's handler: the tool's own (at `at` in `text`), called with the list
/// `list` of the one entry `one`. A plain function over a local copy of the handler, not a
/// wrapper, so that a later change of the single form wraps or extends it once, as any
/// handler (written as a wrapper, memory's `delete_observation` had a bound's wrapper and then
/// a new parameter's stacked on it).
fn passing_on(text: &str, at: (usize, usize), list: &str, one: &str) -> String {
    let code = &text[at.0..at.1];
    let indent = indent_at(text, at.0);
    let all = ["runAll", "runList", "runForList"]
        .into_iter()
        .find(|n| !code.contains(n))
        .unwrap_or("runTheListForm");
    format!(
        "async (input, ...rest) => {{\n{indent}  const {all} = {};\n{indent}  return {all}({{ {list}: [{one}] }}, ...rest);\n{indent}}}",
        crate::mutate::batch_form::nested(code)
    )
}

/// `object` (an object literal whose later lines keep the indentation of where it was nested)
/// with those lines moved so that its closing brace lines up with `indent`.
pub(super) fn reindent(object: &str, indent: &str) -> String {
    let lines: Vec<&str> = object.lines().collect();
    let Some(last) = lines.last().filter(|_| lines.len() > 1) else {
        return object.to_string();
    };
    let at = last.len() - last.trim_start().len();
    let shift = at.saturating_sub(indent.len());
    let mut out = vec![lines[0].to_string()];
    for line in &lines[1..] {
        let spaces = line.len() - line.trim_start().len();
        out.push(line[spaces.min(shift)..].to_string());
    }
    out.join("\n")
}

impl Draft<'_> {
    /// Writes the single form of `tool`; returns its name, or None (and writes nothing) where
    /// the list's entry schema cannot be read, or a listed tool's router is a function
    /// declaration (its body is wrapped in place, with no handler to call with the list).
    pub(super) fn add_single(
        &mut self,
        plan: SingleForm<'_>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        let SingleForm {
            sites,
            name: new,
            param,
            noun,
        } = plan;
        let text = self.e.text(self.root, &param.value.file)?.to_string();
        let value = &text[param.value.bytes.0..param.value.bytes.1];
        let zod = match &sites {
            Sites::Inline(s) => Some(s.zod),
            Sites::Call { zod, .. } => Some(*zod),
            Sites::Listed(_) => None,
        };
        let Some(entry) = entry(value, zod) else {
            return Ok(None);
        };
        let key = match &entry {
            Entry::Fields(_) => None,
            Entry::Value(_) => Some(key_for(&param.name)),
        };
        if let Sites::Listed(_) = sites
            && !wrap::routes_by_expression(self.root, tool)
        {
            return Ok(None);
        }
        let about = self.writer().note(&Note::Single {
            of: &tool.name,
            param: &param.name,
            noun: &noun,
            key: key.as_deref(),
        });
        let list = js_string(&param.name);
        // The entry the call's input makes: the input itself, or its one argument.
        let one = |input: &str| match &key {
            None => input.to_string(),
            Some(k) => format!("{input}[{}]", js_string(k)),
        };
        match sites {
            Sites::Inline(s) => {
                let shape = match &entry {
                    Entry::Fields(shape) => shape.clone(),
                    Entry::Value(v) => format!("{{ {}: {v} }}", key.as_deref().unwrap_or("value")),
                };
                let reg = s.registration;
                let handler = passing_on(&text, s.handler.bytes, &list, &one("input"));
                let cuts = vec![
                    (s.name.bytes, js_string(&new)),
                    (s.description.span.bytes, js_string(&about)),
                    (s.schema.object.bytes, shape),
                    (s.handler.bytes, handler),
                ];
                let copy = cut(&text, reg, cuts);
                self.insert_beside(&text, reg, &copy)?;
            }
            Sites::Call { reg, zod } => {
                let text = self.e.text(self.root, &reg.file)?.to_string();
                let Some(call) = registration_call::read(&text, reg) else {
                    return Ok(None);
                };
                if find_word(&text, zod).is_none() {
                    return Ok(None);
                }
                let shape = match &entry {
                    Entry::Fields(shape) => shape.clone(),
                    Entry::Value(v) => format!("{{ {}: {v} }}", key.as_deref().unwrap_or("value")),
                };
                let handler = passing_on(&text, call.handler, &list, &one("input"));
                let cuts = vec![
                    (call.name, js_string(&new)),
                    (call.description, js_string(&about)),
                    (call.schema, shape),
                    (call.handler, handler),
                ];
                let copy = cut(&text, reg, cuts);
                self.insert_beside(&text, reg, &copy)?;
            }
            Sites::Listed(def) => {
                let shape = match &entry {
                    // Its lines moved out to where the schema is written.
                    Entry::Fields(object) => {
                        let schema_indent = indent_at(&text, def.schema.bytes.0);
                        reindent(object, schema_indent)
                    }
                    Entry::Value(v) => {
                        let k = js_string(key.as_deref().unwrap_or("value"));
                        format!(
                            "{{ type: \"object\", properties: {{ {k}: {v} }}, required: [{k}] }}"
                        )
                    }
                };
                self.insert_listed_copy(&def, tool, &new, &about, shape, "single")?;
                self.route(tool, &new)?;
                let mut single = tool.clone();
                single.name = new.clone();
                let source = js_string(&tool.name);
                let around = Around {
                    before: format!(
                        "const set = {{ {list}: [{}] }};\n\
                         const call = typeof first === \"string\" ? [{source}, set, ...callArgs.slice(2)] : [{{ ...first, params: {{ ...first.params, name: {source}, arguments: set }} }}, ...callArgs.slice(1)];\n\
                         return await handler.apply(this, call);",
                        one("input")
                    ),
                    after: String::new(),
                };
                handler_dialect(tool).wrap(&mut self.e, self.root, &single, &around)?;
            }
        }
        self.added.push(new.clone());
        self.effects.push(Effect::Single {
            tool: new.clone(),
            source: tool.name.clone(),
            param: param.name.clone(),
            key,
        });
        Ok(Some(new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_of_a_list_is_read_from_zod_and_from_json_schema() {
        let Some(Entry::Fields(f)) = entry(
            "z.array(z.object({ name: z.string() })).describe(\"the entities\")",
            Some("z"),
        ) else {
            panic!("a zod object entry")
        };
        assert_eq!(f, "{ name: z.string() }");
        let Some(Entry::Value(v)) = entry("z.array(z.string())", Some("z")) else {
            panic!("a zod plain entry")
        };
        assert_eq!(v, "z.string()");
        let Some(Entry::Fields(f)) = entry(
            "{ type: \"array\", items: { type: \"object\", properties: { a: { type: \"string\" } } } }",
            None,
        ) else {
            panic!("a JSON object entry")
        };
        assert!(f.starts_with("{ type: \"object\""), "{f}");
        let Some(Entry::Value(v)) = entry("{ type: 'array', items: { type: 'string' } }", None)
        else {
            panic!("a JSON plain entry")
        };
        assert_eq!(v, "{ type: 'string' }");
        assert!(entry("{ type: 'array' }", None).is_none());
    }

    #[test]
    fn a_nested_object_is_moved_out_to_where_it_goes() {
        let nested = "{\n            a: 1,\n        }";
        assert_eq!(reindent(nested, "    "), "{\n        a: 1,\n    }");
        assert_eq!(reindent("{ a: 1 }", "    "), "{ a: 1 }");
    }

    #[test]
    fn a_plain_entry_is_named_after_the_list_in_the_singular() {
        assert_eq!(key_for("names"), "name");
        assert_eq!(key_for("entityNames"), "entityName");
        assert_eq!(key_for("ids"), "value");
    }
}
