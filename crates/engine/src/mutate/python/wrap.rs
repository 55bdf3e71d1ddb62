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
use super::super::around::Around;
use super::super::splice::{Edits, contains, indent_at};
use mcpevol_anchor::grammar::Lang;
use mcpevol_core::inventory::{Style, Tool};

/// Where a Python tool's calls are intercepted: the function's start (for the decorator) and
/// the start of its definition with decorators (for the helper), and whether it routes every
/// tool (so the code is guarded by the tool's name).
struct Site {
    def_start: usize,
    decorated_start: usize,
    router: bool,
    /// The name of a wrapping helper an earlier change put on the function (`@_mcpevol_wrap_2`).
    wrapped_by: Option<String>,
}

/// How a router's wrapper tells the tools it acts for: a membership test, not an `==`
/// comparison, so that anchoring never reads it as routing. Renames and aliases keep it in
/// step ([`guards_follow`]).
const GUARD: &str = "if called in ";

/// Rewrites the tool names of every wrapper guard in `file` that names `old`: `names` gets the
/// guard's names and returns the new ones (a rename replaces `old`, an alias joins it).
pub fn guards_follow(
    e: &mut Edits,
    root: &Path,
    file: &str,
    old: &str,
    names: impl Fn(&[String]) -> Vec<String>,
) -> Result<(), MutateError> {
    let text = e.text(root, file)?.to_string();
    let literal = super::string(old);
    let mut at = 0;
    let mut edits = Vec::new();
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim();
        let Some(tuple) = body.strip_prefix(GUARD).and_then(|r| r.strip_suffix(":")) else {
            continue;
        };
        let inner = tuple.trim_start_matches('(').trim_end_matches(')');
        let current: Vec<String> = inner
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .filter_map(|n| serde_json::from_str::<String>(n).ok())
            .collect();
        if !inner.split(',').any(|n| n.trim() == literal) {
            continue;
        }
        let renamed: Vec<String> = names(&current).iter().map(|n| super::string(n)).collect();
        let offset = line.find(GUARD).expect("the line holds the guard") + GUARD.len();
        let end = start + line.trim_end().len() - 1;
        edits.push((start + offset, end, format!("({},)", renamed.join(", "))));
    }
    for (a, b, new) in edits {
        let span = mcpevol_core::inventory::Span {
            file: file.to_string(),
            start_line: 0,
            end_line: 0,
            bytes: (a, b),
        };
        e.replace(root, &span, new)?;
    }
    Ok(())
}

pub fn wrappable(root: &Path, tool: &Tool) -> Result<(), &'static str> {
    site(root, tool).map(|_| ())
}

/// Adds `around` (Python) to the calls of `tool`.
pub fn wrap(e: &mut Edits, root: &Path, tool: &Tool, around: &Around) -> Result<(), MutateError> {
    let site = site(root, tool).map_err(|why| MutateError::Unwrappable {
        tool: tool.name.clone(),
        why,
    })?;
    let file = &tool.handler.as_ref().expect("site() checked").file;
    let text = e.text(root, file)?.to_string();
    // A function wrapped by an earlier change gets the new code in that helper: one wrapper
    // per function, never a second decorator stacked on the first.
    if let Some(helper) = &site.wrapped_by
        && let Some((call, ret)) = helper_points(&text, helper)
    {
        let section = |code: &str, at: usize| -> String {
            let code = code.trim();
            if code.is_empty() {
                return String::new();
            }
            let code = match site.router {
                true => format!(
                    "{GUARD}({},):\n{}",
                    super::string(&tool.name),
                    indent_block(code, "    ")
                ),
                false => code.to_string(),
            };
            format!("{}\n", indent_block(&code, indent_at(&text, at)))
        };
        let (before, after) = (section(&around.before, call), section(&around.after, ret));
        if !before.is_empty() {
            e.insert(root, file, call, before)?;
        }
        if !after.is_empty() {
            e.insert(root, file, ret, after)?;
        }
        return Ok(());
    }
    let indent = indent_at(&text, site.decorated_start).to_string();
    let taken = text.matches("def _mcpevol_wrap_").count();
    let name = format!("_mcpevol_wrap_{}", taken + 1);
    let is_async = text[site.def_start..].starts_with("async");
    let helper = helper(&name, tool, around, site.router, is_async);
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

/// In the helper `name` of `text`, the starts of the line that calls the handler and of the
/// line that returns its answer after it.
fn helper_points(text: &str, name: &str) -> Option<(usize, usize)> {
    let start = text.find(&format!("def {name}(handler):"))?;
    let call_re = regex::Regex::new(r"(?m)^[ \t]*result = handler\(\*args, \*\*kwargs\)$").ok()?;
    let call = start + call_re.find(&text[start..])?.start();
    let ret_re = regex::Regex::new(r"(?m)^[ \t]*return result$").ok()?;
    let ret = call + ret_re.find(&text[call..])?.start();
    Some((call, ret))
}

/// The wrapping helper's code. A function of its own (`router` false) is called with keyword
/// arguments by FastMCP, or by a server's own registry with a model of them
/// (`func(settings, QueryParams(**arguments))`), whose fields are read as the arguments too;
/// and it is wrapped as it is written, `async` or not, since a registry may call it without
/// awaiting it.
fn helper(name: &str, tool: &Tool, around: &Around, router: bool, is_async: bool) -> String {
    // The schema is a model declared apart from the function (not its signature).
    let from_model = (tool.sites.schema.as_ref().zip(tool.handler.as_ref()))
        .is_some_and(|(schema, handler)| !contains(handler, &schema.object));
    let input = if router {
        "called = args[0] if args else kwargs.get(\"name\")\n\
         arguments = (args[1] if len(args) > 1 else kwargs.get(\"arguments\")) or {}\n"
    } else if from_model {
        "arguments = dict(kwargs)\n\
         for given in args:\n    \
             if hasattr(given, \"model_dump\") and hasattr(given, \"model_fields_set\"):\n        \
                 arguments.update(given.model_dump())\n"
    } else {
        "arguments = kwargs\n"
    };
    let imports = match is_async || router {
        true => "    import inspect\n",
        false => "",
    };
    let (wrapped, call) = match is_async || router {
        true => (
            "async def wrapped",
            "result = handler(*args, **kwargs)\nif inspect.isawaitable(result):\n    result = await result\n",
        ),
        false => ("def wrapped", "result = handler(*args, **kwargs)\n"),
    };
    let tool_name = super::string(&tool.name);
    let section = |code: &str| -> String {
        let code = code.trim();
        match (code.is_empty(), router) {
            (true, _) => String::new(),
            (false, true) => format!("{GUARD}({tool_name},):\n{}\n", indent_block(code, "    ")),
            (false, false) => format!("{code}\n"),
        }
    };
    let body = format!(
        "{input}{}{call}{}return result",
        section(&around.before),
        section(&around.after)
    );
    format!(
        "def {name}(handler):\n    \"\"\"What mcpevol's changes to `{}` do, around its handler.\"\"\"\n    import functools\n{imports}\n    def rework(result, cut):\n        if isinstance(result, str):\n            return cut(result)\n        if isinstance(result, (list, tuple)):\n            return type(result)(rework(part, cut) for part in result)\n        if getattr(result, \"type\", None) == \"text\" and isinstance(getattr(result, \"text\", None), str):\n            return result.model_copy(update={{\"text\": cut(result.text)}})\n        return result\n\n    @functools.wraps(handler)\n    {wrapped}(*args, **kwargs):\n{}\n\n    return wrapped\n",
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
        mcpevol_anchor::parse(&src, Lang::Python).ok_or("its handler's file does not parse")?;
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
    let wrapped_by = decorators(function).iter().find_map(|d| {
        let name = src[d.byte_range()].trim_start_matches('@').trim();
        name.starts_with("_mcpevol_wrap_").then(|| name.to_string())
    });
    Ok(Site {
        def_start: function.start_byte(),
        decorated_start,
        router,
        wrapped_by,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A router wrapper from an earlier round, guarded for `echo`, and the same guard once
    /// `echo` is renamed and once it gets an alias.
    #[test]
    fn wrapper_guards_follow_renames_and_aliases() {
        let text = "def w(handler):\n    async def wrapped(*args, **kwargs):\n        if called in (\"echo\",):\n            pass\n        if called in (\"add\",):\n            pass\n";
        let dir = crate::confine::tests::committed_package(&[("s.py", text)]);
        let mut e = Edits::default();
        guards_follow(&mut e, dir.path(), "s.py", "echo", |names| {
            names.iter().map(|n| n.replace("echo", "echo_v2")).collect()
        })
        .unwrap();
        crate::hunks::apply(dir.path(), &e.into_hunks()).unwrap();
        let renamed = std::fs::read_to_string(dir.path().join("s.py")).unwrap();
        assert!(
            renamed.contains("if called in (\"echo_v2\",):"),
            "{renamed}"
        );
        assert!(renamed.contains("if called in (\"add\",):"), "{renamed}");
        let mut e = Edits::default();
        guards_follow(&mut e, dir.path(), "s.py", "echo_v2", |names| {
            let mut out = names.to_vec();
            out.push("echo_alias".into());
            out
        })
        .unwrap();
        crate::hunks::apply(dir.path(), &e.into_hunks()).unwrap();
        let aliased = std::fs::read_to_string(dir.path().join("s.py")).unwrap();
        assert!(
            aliased.contains("if called in (\"echo_v2\", \"echo_alias\",):"),
            "{aliased}"
        );
    }
}
