//! Wrapping a Python tool's handler so that a new parameter or bound really acts: a decorator
//! written just above the function that answers the tool, defined beside it.
//!
//! A FastMCP tool's own function gets it directly: FastMCP calls it with keyword arguments, and
//! reads its signature through `functools.wraps` (`__wrapped__`), so the tool's schema is the
//! function's own. A tool routed by the low-level server's call handler (`match name:`,
//! `if name == ...`) gets the call handler wrapped, guarded by the tool's name. The wrapper
//! runs `before` (it sees `arguments`; raising refuses the call, which the SDK answers as an
//! error result) and `after` (it may rework `result` with `rework(result, cut)`, which cuts
//! every text part of an answer: a string, text content, or a list of those).

use std::path::Path;

use tree_sitter::Node;

use super::super::MutateError;
use super::super::splice::{Edits, indent_at};
use super::super::wrap::Around;
use crate::anchor::grammar::Lang;
use crate::inventory::{Style, Tool};

/// Where a Python tool's calls are intercepted: the function's start (for the decorator) and
/// the start of its definition with decorators (for the helper), and whether it routes every
/// tool (so the code is guarded by the tool's name).
struct Site {
    def_start: usize,
    decorated_start: usize,
    router: bool,
}

pub fn wrappable(root: &Path, tool: &Tool) -> Result<(), &'static str> {
    site(root, tool).map(|_| ())
}

/// Adds `around` (Python) to the calls of `tool`.
pub fn wrap(e: &mut Edits, root: &Path, tool: &Tool, around: &Around) -> Result<(), MutateError> {
    let site = site(root, tool).map_err(|why| MutateError::NotApplicable {
        operator: "wrap".into(),
        why: why.into(),
    })?;
    let file = &tool.handler.as_ref().expect("site() checked").file;
    let text = e.text(root, file)?.to_string();
    let indent = indent_at(&text, site.decorated_start).to_string();
    let taken = text.matches("def _mcpevol_wrap_").count();
    let name = format!("_mcpevol_wrap_{}", taken + 1);
    let helper = helper(&name, tool, around, site.router);
    let indented: String = helper
        .lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{indent}{l}\n")
            }
        })
        .collect();
    let line_start = text[..site.decorated_start]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let def_indent = indent_at(&text, site.def_start).to_string();
    let decorator = format!("@{name}\n{def_indent}");
    if site.decorated_start == site.def_start {
        // No decorators: the helper, then its decorator, in one insertion before the `def`.
        return e.insert(
            root,
            file,
            site.def_start,
            format!("{}\n{def_indent}{decorator}", indented.trim_start()),
        );
    }
    e.insert(root, file, line_start, format!("{indented}\n"))?;
    e.insert(root, file, site.def_start, decorator)
}

fn helper(name: &str, tool: &Tool, around: &Around, router: bool) -> String {
    let input = if router {
        "tool = args[0] if args else kwargs.get(\"name\")\n\
         arguments = (args[1] if len(args) > 1 else kwargs.get(\"arguments\")) or {}\n"
    } else {
        "arguments = kwargs\n"
    };
    let tool_name = super::string(&tool.name);
    let section = |code: &str| -> String {
        let code = code.trim();
        match (code.is_empty(), router) {
            (true, _) => String::new(),
            (false, true) => format!("if tool == {tool_name}:\n{}\n", indent_block(code, "    ")),
            (false, false) => format!("{code}\n"),
        }
    };
    let body = format!(
        "{input}{}result = handler(*args, **kwargs)\nif inspect.isawaitable(result):\n    result = await result\n{}return result",
        section(&around.before),
        section(&around.after)
    );
    format!(
        "def {name}(handler):\n    \"\"\"What mcpevol's changes to `{}` do, around its handler.\"\"\"\n    import functools\n    import inspect\n\n    def rework(result, cut):\n        if isinstance(result, str):\n            return cut(result)\n        if isinstance(result, (list, tuple)):\n            return type(result)(rework(part, cut) for part in result)\n        if getattr(result, \"type\", None) == \"text\" and isinstance(getattr(result, \"text\", None), str):\n            return result.model_copy(update={{\"text\": cut(result.text)}})\n        return result\n\n    @functools.wraps(handler)\n    async def wrapped(*args, **kwargs):\n{}\n\n    return wrapped\n",
        tool.name.replace('`', "'"),
        indent_block(&body, "        ")
    )
}

fn indent_block(code: &str, by: &str) -> String {
    code.lines()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{by}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn site(root: &Path, tool: &Tool) -> Result<Site, &'static str> {
    let handler = tool.handler.as_ref().ok_or("its handler was not found")?;
    let src = std::fs::read_to_string(root.join(&handler.file))
        .map_err(|_| "its handler's file cannot be read")?;
    let tree =
        crate::anchor::parse(&src, Lang::Python).ok_or("its handler's file does not parse")?;
    let node = tree
        .root_node()
        .descendant_for_byte_range(handler.bytes.0, handler.bytes.1)
        .ok_or("its handler is not where anchoring found it")?;
    let function = std::iter::successors(Some(node), |n| n.parent())
        .find(|n| n.kind() == "function_definition")
        .ok_or("no function around its handler receives the call")?;
    let own = function.start_byte() == handler.bytes.0 && function.end_byte() == handler.bytes.1;
    let is_call_handler = decorators(function)
        .iter()
        .any(|d| src[d.byte_range()].contains("call_tool"));
    let router = if is_call_handler {
        true
    } else if own && tool.style == Style::Register {
        false
    } else {
        return Err("its handler is not a function FastMCP calls nor the server's call handler");
    };
    let decorated_start = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .map_or(function.start_byte(), |p| p.start_byte());
    Ok(Site {
        def_start: function.start_byte(),
        decorated_start,
        router,
    })
}

fn decorators(function: Node) -> Vec<Node> {
    let Some(decorated) = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return Vec::new();
    };
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .collect()
}
