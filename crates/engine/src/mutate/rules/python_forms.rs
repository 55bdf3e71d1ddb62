//! The batch and single forms of a decorated Python tool (FastMCP's `@mcp.tool()`): a new
//! decorated function written after the tool's, which calls the tool's own function (its
//! `fn` where the decorator returned a tool object) on each argument set, or on a list of the
//! one entry it takes. What `batch_form.rs` and `single_form.rs` write for JavaScript.

use mcpevol_anchor::grammar::Lang;
use tree_sitter::Node;

use super::super::MutateError;
use super::super::batch_form::{self, ITEMS, MOST};
use super::super::prose::Note;
use super::super::python;
use super::super::splice::{find_word, indent_at};
use super::Draft;
use super::single_form::{self, ListTool};
use mcpevol_core::inventory::{Span, Tool};
use mcpevol_oracle::validate::Effect;

/// Where a Python form is written from, and which.
pub(super) struct PyForm<'t> {
    reg: &'t Span,
    handler: &'t Span,
    kind: PyKind,
}

enum PyKind {
    /// Runs the tool on each of several argument sets.
    Batch { name: String },
    /// Runs the tool on a list of the one entry it takes, as `key`.
    Single {
        name: String,
        list: String,
        key: String,
        noun: String,
    },
}

impl PyForm<'_> {
    pub(super) fn is_batch(&self) -> bool {
        matches!(self.kind, PyKind::Batch { .. })
    }
}

/// The Python form `tool` can be given (its single form where it takes a list, else its batch
/// form), or why it has none. Its function's signature is read when the form is written.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<PyForm<'t>, &'static str> {
    if !python::registered_function(tool) {
        return Err("it is not a decorated Python function");
    }
    let reg = (tool.sites.registration.as_ref()).ok_or("no registration site was found")?;
    let handler = tool.handler.as_ref().ok_or("its handler was not found")?;
    let kind = match (
        single_form::list_tool(tool, all),
        batch_form::free_name(tool, all),
    ) {
        (Ok(ListTool { name, list, noun }), _) => PyKind::Single {
            name,
            list: list.name.clone(),
            key: single_form::key_for(&list.name),
            noun,
        },
        (Err(_), Ok(name)) if !tool.params.is_empty() => PyKind::Batch { name },
        (Err(why), _) => return Err(why),
    };
    Ok(PyForm { reg, handler, kind })
}

/// What the rules read of a decorated function's definition.
pub(super) struct Signature {
    pub(super) function: String,
    /// Each parameter's name and type annotation, as written.
    pub(super) params: Vec<(String, String)>,
    /// The parameter list as written, parentheses included.
    pub(super) list: String,
}

impl Signature {
    /// The signature of the function defined in `code`, or why a form cannot call it: it
    /// takes open-ended or positional-only arguments.
    pub(super) fn read(code: &str) -> Result<Signature, &'static str> {
        let tree = mcpevol_anchor::parse(code, Lang::Python).ok_or("its handler does not parse")?;
        let def = find_kind(tree.root_node(), "function_definition")
            .ok_or("its handler is not a function definition")?;
        let text = |n: Node| code[n.byte_range()].to_string();
        let function =
            (def.child_by_field_name("name").map(text)).ok_or("its function has no name")?;
        let parameters =
            (def.child_by_field_name("parameters")).ok_or("its function has no parameters")?;
        let mut params = Vec::new();
        let mut cursor = parameters.walk();
        for p in parameters.named_children(&mut cursor) {
            let name = |p: Node| {
                (p.child_by_field_name("name").or_else(|| p.named_child(0)))
                    .map(text)
                    .unwrap_or_default()
            };
            match p.kind() {
                "identifier" => params.push((text(p), String::new())),
                "typed_parameter" | "typed_default_parameter" => {
                    let ty = p.child_by_field_name("type").map(text).unwrap_or_default();
                    params.push((name(p), ty));
                }
                "default_parameter" => params.push((name(p), String::new())),
                "comment" | "keyword_separator" => {}
                _ => return Err("it takes open-ended or positional-only arguments"),
            }
        }
        Ok(Signature {
            function,
            params,
            list: text(parameters),
        })
    }

    /// The signature, or why a form that calls the function with arguments of its own cannot:
    /// it takes the framework's context, which such a form has no way to pass on.
    fn without_context(self) -> Result<Signature, &'static str> {
        match (self.params.iter()).any(|(n, t)| t.contains("Context") || n == "ctx") {
            true => Err("it takes the framework's context, which a form cannot pass on"),
            false => Ok(self),
        }
    }

    /// The type of one entry of the list parameter `list`: `X` of `list[X]` (also inside
    /// `Annotated[...]`), where it is a plain name other than a number's (`str`, `dict`, a
    /// model class).
    fn entry_type(&self, list: &str) -> Option<String> {
        let (_, ty) = self.params.iter().find(|(n, _)| n == list)?;
        let mut ty = ty.trim();
        if let Some(inner) = ty.strip_prefix("Annotated[") {
            ty = inner.split(',').next()?.trim();
        }
        let inner = ["list[", "List[", "Sequence[", "typing.List["]
            .iter()
            .find_map(|open| ty.strip_prefix(open))?;
        let inner = inner.strip_suffix(']').unwrap_or(inner).trim();
        let plain = !inner.is_empty()
            && (inner.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        (plain && !matches!(inner, "int" | "float")).then(|| inner.to_string())
    }
}

/// The registration `region` naming the tool `new`, described by `about`.
fn registration(region: &str, new: &str, about: &str) -> Result<String, MutateError> {
    python::alias_registration(region, new, about).ok_or(MutateError::Unregistrable(
        "its registration could not be copied for the new tool",
    ))
}

/// The new function `def` (named `function`) registered as the tool `new`, described by
/// `about`, as the original (`source`) is by `region`: a decorator is copied above the new
/// function; a registration call (`add_tool(f)`) is copied after it, naming the new function.
pub(super) fn registered(
    region: &str,
    indent: &str,
    source: &str,
    (new, about): (&str, &str),
    (function, def): (&str, &str),
) -> Result<String, MutateError> {
    Ok(match region.starts_with('@') {
        true => {
            let decorator = registration(region, new, about)?;
            format!("\n\n\n{indent}{decorator}\n{def}")
        }
        false => {
            let call = replace_word(region, source, function).ok_or(MutateError::Unregistrable(
                "its registration does not name its function",
            ))?;
            let call = registration(&call, new, about)?;
            format!("\n\n\n{}\n\n{indent}{call}", def.trim_end())
        }
    })
}

/// `text` with its first whole word `from` made `to`, or None where it has none.
fn replace_word(text: &str, from: &str, to: &str) -> Option<String> {
    let at = find_word(text, from)?;
    Some(format!("{}{to}{}", &text[..at], &text[at + from.len()..]))
}

fn find_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    if n.kind() == kind {
        return Some(n);
    }
    let mut cursor = n.walk();
    let children: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
    children.into_iter().find_map(|c| find_kind(c, kind))
}

/// A Python identifier for the function of tool `name`, not yet a word of `text`.
pub(super) fn identifier(name: &str, text: &str) -> String {
    let base: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match find_word(text, &base) {
        None => base,
        Some(_) => format!("{base}_tool"),
    }
}

/// The body of a batch form calling `function` on each set of `items`, at `indent`.
fn batch_body(function: &str, indent: &str) -> String {
    let lines = [
        (0, format!("if not 1 <= len({ITEMS}) <= {MOST}:")),
        (1, format!("raise ValueError(\"{ITEMS}: give 1 to {MOST} sets of arguments\")")),
        // The text parts of each answer, in order, as the framework would write them one by one.
        (0, "from mcp.types import TextContent".to_string()),
        (0, String::new()),
        (0, format!("run = getattr({function}, \"fn\", {function})")),
        (0, "parts = []".to_string()),
        (0, format!("for arguments in {ITEMS}:")),
        (1, "answer = run(**arguments)".to_string()),
        (1, "if hasattr(answer, \"__await__\"):".to_string()),
        (2, "answer = await answer".to_string()),
        (1, "for part in answer if isinstance(answer, (list, tuple)) else [answer]:".to_string()),
        (2, "parts.append(TextContent(type=\"text\", text=part) if isinstance(part, str) else part)".to_string()),
        (0, "return parts".to_string()),
    ];
    indented(&lines, indent)
}

/// The body of a single form calling `function` with `list` holding the one `key`.
fn single_body(function: &str, list: &str, key: &str, indent: &str) -> String {
    let lines = [
        (0, format!("run = getattr({function}, \"fn\", {function})")),
        (0, format!("answer = run({list}=[{key}])")),
        (0, "if hasattr(answer, \"__await__\"):".to_string()),
        (1, "answer = await answer".to_string()),
        (0, "return answer".to_string()),
    ];
    indented(&lines, indent)
}

pub(super) fn indented(lines: &[(usize, String)], indent: &str) -> String {
    let mut out = String::new();
    for (depth, line) in lines {
        if !line.is_empty() {
            out.push_str(indent);
            out.push_str(&"    ".repeat(depth + 1));
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

impl Draft<'_> {
    /// Writes `form` of `tool` after its function; returns its name, or None (and writes
    /// nothing) where the function's signature does not let a form call it.
    pub(super) fn add_python_form(
        &mut self,
        form: PyForm<'_>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        let text = self.e.text(self.root, &form.handler.file)?.to_string();
        let code = &text[form.handler.bytes.0..form.handler.bytes.1];
        let Ok(signature) = Signature::read(code).and_then(Signature::without_context) else {
            return Ok(None);
        };
        let entry = match &form.kind {
            PyKind::Batch { .. } => String::new(),
            PyKind::Single { list, .. } => match signature.entry_type(list) {
                Some(entry) => entry,
                None => return Ok(None),
            },
        };
        let text = self.e.text(self.root, &form.reg.file)?.to_string();
        let region = &text[form.reg.bytes.0..form.reg.bytes.1];
        let indent = indent_at(&text, form.reg.bytes.0).to_string();
        let (new, about, params, body, effect) = match &form.kind {
            PyKind::Batch { name } => (
                name.clone(),
                self.writer().note(&Note::Batch {
                    of: &tool.name,
                    items: ITEMS,
                    most: MOST,
                }),
                format!("{ITEMS}: list[dict]"),
                batch_body(&signature.function, &indent),
                Effect::Batch {
                    tool: name.clone(),
                    source: tool.name.clone(),
                    items: ITEMS.to_string(),
                },
            ),
            PyKind::Single {
                name,
                list,
                key,
                noun,
            } => (
                name.clone(),
                self.writer().note(&Note::Single {
                    of: &tool.name,
                    param: list,
                    noun,
                    key: Some(key),
                }),
                format!("{key}: {entry}"),
                single_body(&signature.function, list, key, &indent),
                Effect::Single {
                    tool: name.clone(),
                    source: tool.name.clone(),
                    param: list.clone(),
                    key: Some(key.clone()),
                },
            ),
        };
        let function = identifier(&new, &text);
        let def = format!("{indent}async def {function}({params}):\n{body}");
        let code = registered(
            region,
            &indent,
            &signature.function,
            (&new, &about),
            (&function, &def),
        )?;
        let end = form.handler.bytes.1.max(form.reg.bytes.1);
        self.e
            .insert(self.root, &form.reg.file, end, code.trim_end().to_string())?;
        self.added.push(new.clone());
        self.effects.push(effect);
        Ok(Some(new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_type_of_a_list_is_read_from_its_annotation() {
        let s = Signature {
            function: "f".into(),
            params: vec![
                ("entities".into(), "list[Entity]".into()),
                (
                    "names".into(),
                    "Annotated[List[str], Field(description=\"x\")]".into(),
                ),
                ("counts".into(), "list[int]".into()),
                ("pairs".into(), "list[tuple[str, str]]".into()),
            ],
            list: String::new(),
        };
        assert_eq!(s.entry_type("entities").as_deref(), Some("Entity"));
        assert_eq!(s.entry_type("names").as_deref(), Some("str"));
        assert_eq!(s.entry_type("counts"), None);
        assert_eq!(s.entry_type("pairs"), None);
    }
}
