//! Wrapping a tool's handler so that a new parameter really does what its description says:
//! code that runs before the handler (`input` holds the tool's arguments; returning refuses the
//! call) and after it (`result` holds its answer), for every registration style. This is the
//! JavaScript wrapping; a Python handler is wrapped by `python/wrap.rs`, and the handler's
//! dialect (`dialect/`) chooses.
//!
//! A tool with its own handler function gets that function wrapped; a tool routed by `case`,
//! `if` or a handler map gets the function that routes it wrapped, guarded by the tool's name.

use std::path::Path;

use tree_sitter::Node;

use super::MutateError;
use super::around::Around;
use super::splice::{Edits, indent_at};
use mcpevol_anchor::grammar::Lang;
use mcpevol_core::inventory::{Span, Tool};

/// Where a tool's calls can be intercepted.
#[derive(Debug, Clone, PartialEq)]
enum Site {
    /// A function expression that is this tool's own handler (its first argument is the
    /// tool's input), replaced by a wrapped copy.
    Own(Span),
    /// The same, for an async method or function declaration: its body is wrapped.
    OwnBody(Span),
    /// A function expression that routes every tool (`setRequestHandler(..., async (request)
    /// => { switch (request.params.name) ... })`), wrapped with a guard on the tool's name.
    Router(Span),
    /// The same, for a routing function declaration or method: its body is wrapped.
    RouterBody(Span),
}

/// Whether `tool` is routed by a function expression its wrapper holds as `handler`, which
/// takes the call as arguments (so that wrapper code can call it again with other ones). One
/// that reads the tool's name and input from its closure (`async () => { switch (name) ... }`
/// inside `handleToolCall(name, args)`) runs the same call whatever it is given: on puppeteer,
/// every batch form written so ran its own name with `items` as the arguments.
pub(super) fn routes_by_expression(root: &Path, tool: &Tool) -> bool {
    let Ok(Site::Router(span)) = site(root, tool) else {
        return false;
    };
    std::fs::read_to_string(root.join(&span.file))
        .ok()
        .and_then(|text| text.get(span.bytes.0..span.bytes.1).map(takes_arguments))
        .unwrap_or(false)
}

/// Whether function expression `code` declares a parameter.
fn takes_arguments(code: &str) -> bool {
    let head = code.split_once("=>").map_or(code, |(h, _)| h);
    let head = head.split_once('{').map_or(head, |(h, _)| h);
    match (head.find('('), head.rfind(')')) {
        (Some(open), Some(close)) if close > open => !head[open + 1..close].trim().is_empty(),
        // `async request => ...`: one parameter, unparenthesised.
        _ => true,
    }
}

/// Why the JavaScript handler of `tool` cannot be wrapped, or Ok.
pub(super) fn wrappable_js(root: &Path, tool: &Tool) -> Result<(), &'static str> {
    site(root, tool).map(|_| ())
}

/// Adds `around` to the calls of `tool`, whose handler is JavaScript.
pub(super) fn wrap_js(
    e: &mut Edits,
    root: &Path,
    tool: &Tool,
    around: &Around,
) -> Result<(), MutateError> {
    let site = site(root, tool).map_err(|why| MutateError::Unwrappable {
        tool: tool.name.clone(),
        why,
    })?;
    let name = serde_json::to_string(&tool.name).expect("a string serializes");
    let (span, body) = match &site {
        Site::Own(s) | Site::Router(s) => (s.clone(), false),
        Site::OwnBody(s) | Site::RouterBody(s) => (s.clone(), true),
    };
    let text = e.text(root, &span.file)?.to_string();
    let guarded = matches!(site, Site::Router(_) | Site::RouterBody(_));
    // A handler wrapped by an earlier change gets its new code in that wrapper: a maintainer
    // extends the code around a handler, and stacked wrappers re-read the request each.
    if let Some(existing) = existing_wrapper(root, &span, body, &text) {
        return extend(
            e, root, &span.file, &text, &existing, &name, guarded, around,
        );
    }
    let original = &text[span.bytes.0..span.bytes.1];
    let indent = indent_at(&text, span.bytes.0).to_string();
    // A wrapped body still sees the call's `arguments`; a wrapped expression names them.
    let args = if body { "arguments" } else { "callArgs" };
    let input = if guarded {
        format!(
            "const [first, second] = {args};\n\
             const tool = typeof first === \"string\" ? first : first?.params?.name ?? first?.name;\n\
             const input = (typeof first === \"string\" ? second : first?.params?.arguments ?? first?.arguments) ?? {{}};\n"
        )
    } else {
        format!("const input = {args}[0] ?? {{}};\n")
    };
    let section = |code: &str| -> String {
        let code = code.trim();
        match (code.is_empty(), guarded) {
            (true, _) => String::new(),
            (false, true) => format!("if (tool === {name}) {{\n{code}\n}}\n"),
            (false, false) => format!("{code}\n"),
        }
    };
    let (before, after) = (section(&around.before), section(&around.after));
    // The original is left as it is, between a prefix and a suffix, so that the hunks show
    // only what the wrapper adds.
    let (mut prefix, mut suffix) = if body {
        (
            format!("{{\n{input}{before}let result = await (async () =>"),
            format!(")();\n{after}return result;\n}}"),
        )
    } else {
        (
            format!(
                "((handler) => async function (...callArgs) {{\n{input}{before}let result = await handler.apply(this, callArgs);\n{after}return result;\n}})(\n"
            ),
            ")".to_string(),
        )
    };
    if body {
        // The original body runs inside the wrapper's scope: the wrapper's names must not
        // shadow names it uses.
        for name in WRAPPER_NAMES {
            let free = unused_name(name, original);
            if free != *name {
                prefix = rename_word(&prefix, name, &free);
                suffix = rename_word(&suffix, name, &free);
            }
        }
    }
    let gap = if body { " " } else { "" };
    let prefix = format!("{}{gap}", indent_lines(&prefix, &indent).trim_end());
    let suffix = if body {
        // `)();` right after the original's closing brace, then the rest a level in.
        let block = indent_lines(&format!("{{\n{}", &suffix[")();\n".len()..]), &indent);
        format!(")();{}", &block[1..])
    } else {
        suffix
    };
    e.insert(root, &span.file, span.bytes.0, prefix)?;
    e.insert(root, &span.file, span.bytes.1, suffix)
}

/// A wrapper written by an earlier change around a handler: where new code goes in it, and the
/// names it gave the call's input, the tool's name and the answer.
#[derive(Debug, PartialEq)]
struct Existing {
    /// The start of the line after the one that reads the input: code before the call goes
    /// here, ahead of what earlier changes wrote.
    call: usize,
    /// The start of the line that returns the answer: code after the call goes here.
    ret: usize,
    input: String,
    tool: Option<String>,
    result: String,
}

/// The wrapper around the handler at `span` (its text in `text`), if an earlier change wrote
/// one: for an expression, the wrapper call the expression is the argument of (the outermost,
/// where older versions stacked several); for a body, the body itself.
fn existing_wrapper(root: &Path, span: &Span, body: bool, text: &str) -> Option<Existing> {
    if body {
        return wrapper_at(text, span.bytes.0, span.bytes.1, true);
    }
    let lang = Lang::for_path(&root.join(&span.file))?;
    let tree = mcpevol_anchor::parse(text, lang)?;
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(span.bytes.0, span.bytes.1)?;
    let mut found = None;
    // `((handler) => async function (...callArgs) { ... })(<handler>)`: the handler is the
    // argument of a call whose callee is the wrapper.
    while let Some(args) = node.parent().filter(|p| p.kind() == "arguments") {
        let call = args.parent().filter(|c| c.kind() == "call_expression")?;
        let callee = call.child_by_field_name("function")?;
        let callee_text = &text[callee.start_byte()..callee.end_byte()];
        if !callee_text.starts_with(WRAPPER_OPEN) {
            break;
        }
        found = wrapper_at(text, callee.start_byte(), callee.end_byte(), false);
        node = call;
    }
    found
}

const WRAPPER_OPEN: &str = "((handler) => async function (...callArgs) {";

/// The insertion points and names of the wrapper in `text[start..end]` (a wrapped body, or a
/// wrapper function expression), if it is one the rules wrote.
fn wrapper_at(text: &str, start: usize, end: usize, body: bool) -> Option<Existing> {
    let region = &text[start..end];
    let word = r"([A-Za-z_$][\w$]*)";
    let (input_re, call_re) = match body {
        true => (
            format!(
                r"^\{{\s*const (?:\[{word}, {word}\] = arguments;\s*const {word} = typeof .*?;\s*const {word} = \(typeof|{word} = arguments\[0\] \?\? \{{\}};)"
            ),
            format!(r"(?m)^[ \t]*let {word} = await \(async \(\) =>"),
        ),
        false => (
            format!(
                r"^\(\(handler\) => async function \(\.\.\.callArgs\) \{{\s*const (?:\[{word}, {word}\] = callArgs;\s*const {word} = typeof .*?;\s*const {word} = \(typeof|{word} = callArgs\[0\] \?\? \{{\}};)"
            ),
            format!(r"(?m)^[ \t]*let {word} = await handler\.apply\(this, callArgs\);"),
        ),
    };
    let head = regex::Regex::new(&input_re).ok()?.captures(region)?;
    let call = regex::Regex::new(&call_re).ok()?.captures(region)?;
    let result = call[1].to_string();
    let (input, tool) = match head.get(5) {
        Some(single) => (single.as_str().to_string(), None),
        None => (head[4].to_string(), Some(head[3].to_string())),
    };
    let call_at = call.get(0)?.start();
    // New code goes first, after the input is read: a section an earlier change wrote may
    // answer for the tool itself (a single or batch form passing its call on, an alias), and a
    // check behind it would never run.
    let head_end = head.get(0)?.end();
    let top = head_end + region[head_end..].find('\n')? + 1;
    // The wrapper's own `return <result>;`: its last statement (the region ends with the
    // wrapper, the wrapped handler outside it or inside a function of its own).
    let ret_re =
        regex::Regex::new(&format!(r"(?m)^[ \t]*return {};", regex::escape(&result))).ok()?;
    let after_call = &region[call_at..];
    let ret = ret_re.find_iter(after_call).last()?;
    Some(Existing {
        call: start + top.min(call_at),
        ret: start + call_at + ret.start(),
        input,
        tool,
        result,
    })
}

/// Adds `around`'s code to the wrapper `w` already around the handler: before the call and
/// before the answer is returned, guarded by the tool's name where the wrapper routes several.
#[allow(clippy::too_many_arguments)]
fn extend(
    e: &mut Edits,
    root: &Path,
    file: &str,
    text: &str,
    w: &Existing,
    name: &str,
    guarded: bool,
    around: &Around,
) -> Result<(), MutateError> {
    let named = |code: &str| -> String {
        let code = rename_word(code, "input", &w.input);
        rename_word(&code, "result", &w.result)
    };
    let section = |code: &str, at: usize| -> String {
        let code = code.trim();
        if code.is_empty() {
            return String::new();
        }
        let indent = indent_at(text, at).to_string();
        let code = match (&w.tool, guarded) {
            (Some(tool), true) => format!("if ({tool} === {name}) {{\n{}\n}}", named(code)),
            _ => named(code),
        };
        format!("{indent}{}\n", indent_lines(&code, &indent))
    };
    let (before, after) = (
        section(&around.before, w.call),
        section(&around.after, w.ret),
    );
    if !before.is_empty() {
        e.insert(root, file, w.call, before)?;
    }
    if !after.is_empty() {
        e.insert(root, file, w.ret, after)?;
    }
    Ok(())
}

/// Names the wrapper declares where a wrapped body can see them.
const WRAPPER_NAMES: &[&str] = &["input", "result", "first", "second", "tool"];

/// `name`, or `wrappedName`, `wrappedName2`, ... when `code` already uses it.
fn unused_name(name: &str, code: &str) -> String {
    let used = |n: &str| {
        regex::Regex::new(&format!(r"\b{}\b", regex::escape(n)))
            .expect("an escaped word is a valid pattern")
            .is_match(code)
    };
    if !used(name) {
        return name.to_string();
    }
    let mut chars = name.chars();
    let capital: String = chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .into_iter()
        .chain(chars)
        .collect();
    (1..)
        .map(|i| {
            if i == 1 {
                format!("wrapped{capital}")
            } else {
                format!("wrapped{capital}{i}")
            }
        })
        .find(|n| !used(n))
        .expect("some numbered name is free")
}

/// `code` with the word `from` (not parts of longer names, not after a `.`) renamed to `to`.
fn rename_word(code: &str, from: &str, to: &str) -> String {
    let re = regex::Regex::new(&format!(r"(^|\.\.\.|[^.\w$]){}\b", regex::escape(from)))
        .expect("an escaped word is a valid pattern");
    re.replace_all(code, |c: &regex::Captures| format!("{}{to}", &c[1]))
        .into_owned()
}

/// `code` with every line after the first indented one level below `indent`, blank lines kept
/// empty.
fn indent_lines(code: &str, indent: &str) -> String {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (i, line) in code.lines().enumerate() {
        let line = line.trim_end();
        let closes = line.starts_with('}') || line.starts_with(')');
        if closes {
            depth = depth.saturating_sub(1);
        }
        if i == 0 || line.is_empty() {
            out.push(line.to_string());
        } else {
            out.push(format!("{indent}{}{line}", "  ".repeat(depth)));
        }
        let opens = line.matches('{').count() as isize - line.matches('}').count() as isize;
        if opens > 0 || (closes && opens == 0 && line.ends_with('{')) {
            depth += 1;
        } else if opens < 0 && !closes {
            depth = depth.saturating_sub(1);
        }
    }
    out.join("\n")
}

/// The place to intercept calls of `tool`.
fn site(root: &Path, tool: &Tool) -> Result<Site, &'static str> {
    let handler = tool.handler.as_ref().ok_or("its handler was not found")?;
    let path = root.join(&handler.file);
    let lang =
        Lang::for_path(&path).ok_or("its handler is not in a JavaScript or TypeScript file")?;
    let src = std::fs::read_to_string(&path).map_err(|_| "its handler's file cannot be read")?;
    let tree = mcpevol_anchor::parse(&src, lang).ok_or("its handler's file does not parse")?;
    let node = tree
        .root_node()
        .descendant_for_byte_range(handler.bytes.0, handler.bytes.1)
        .ok_or("its handler is not where anchoring found it")?;
    let spanned = |n: Node| Span {
        file: handler.file.clone(),
        start_line: n.start_position().row + 1,
        end_line: n.end_position().row + 1,
        bytes: (n.start_byte(), n.end_byte()),
    };
    let own = node.start_byte() == handler.bytes.0 && node.end_byte() == handler.bytes.1;
    // Anchoring may stop at the server's handler of every call (where it dispatches through a
    // table it cannot follow): that function gets the request, not the tool's input.
    if own && is_function_expression(node) && handles_every_call(node, &src) {
        return Ok(Site::Router(spanned(node)));
    }
    if own && is_function_expression(node) {
        return Ok(Site::Own(spanned(node)));
    }
    if own && is_async_body_owner(node, &src) {
        let body = node
            .child_by_field_name("body")
            .ok_or("its handler has no body")?;
        return Ok(Site::OwnBody(spanned(body)));
    }
    if own && (node.kind() == "method_definition" || node.kind() == "function_declaration") {
        return Err("its handler is not async, so its answer cannot be awaited and reworked");
    }
    // Routed by `case` or `if`: the function around the routing construct gets every call.
    // One that takes no parameters (an `(async () => { switch ... })()` run inside the
    // request handler) is not given the call: the function around it is.
    let mut up = node.parent();
    while let Some(n) = up {
        if takes_no_parameters(n) {
            up = n.parent();
            continue;
        }
        if is_function_expression(n) {
            return Ok(Site::Router(spanned(n)));
        }
        if is_async_body_owner(n, &src) {
            let body = n
                .child_by_field_name("body")
                .ok_or("its router has no body")?;
            return Ok(Site::RouterBody(spanned(body)));
        }
        if n.kind() == "method_definition" || n.kind() == "function_declaration" {
            return Err("the function that routes its calls is not async");
        }
        up = n.parent();
    }
    Err("no function around its handler receives the call")
}

/// Whether the function `n` is given every tool call: the handler of a
/// `setRequestHandler(CallToolRequestSchema, ...)` call, or the value of a `"tools/call"` key.
fn handles_every_call(n: Node, src: &str) -> bool {
    let Some(parent) = n.parent() else {
        return false;
    };
    let text = |n: Node| &src[n.start_byte()..n.end_byte()];
    match parent.kind() {
        "arguments" => parent
            .named_child(0)
            .is_some_and(|first| first.id() != n.id() && text(first).contains("CallToolRequest")),
        "pair" => parent
            .child_by_field_name("key")
            .is_some_and(|k| text(k).trim_matches(['"', '\'']) == "tools/call"),
        _ => false,
    }
}

fn is_function_expression(n: Node) -> bool {
    matches!(
        n.kind(),
        "arrow_function" | "function_expression" | "function"
    ) && n.child_by_field_name("body").is_some()
}

/// Whether `n` is a function that declares no parameter, so a wrapper around it would see no
/// call.
fn takes_no_parameters(n: Node) -> bool {
    matches!(
        n.kind(),
        "arrow_function"
            | "function_expression"
            | "function"
            | "method_definition"
            | "function_declaration"
    ) && n.child_by_field_name("parameter").is_none()
        && (n.child_by_field_name("parameters")).is_none_or(|p| p.named_child_count() == 0)
}

/// An `async` method or function declaration with a block body.
fn is_async_body_owner(n: Node, src: &str) -> bool {
    matches!(n.kind(), "method_definition" | "function_declaration")
        && src[n.start_byte()..n.end_byte()]
            .trim_start()
            .starts_with("async")
        && n.child_by_field_name("body").is_some()
}

#[cfg(test)]
#[path = "wrap_tests.rs"]
mod site_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_names_that_the_wrapped_code_uses_are_replaced_but_properties_are_not() {
        assert_eq!(unused_name("result", "return result(x)"), "wrappedResult");
        assert_eq!(unused_name("input", "return x"), "input");
        assert_eq!(
            rename_word(
                "let result = f(input.result); return result;",
                "result",
                "wrappedResult"
            ),
            "let wrappedResult = f(input.result); return wrappedResult;"
        );
    }

    #[test]
    fn a_router_reading_its_call_from_its_closure_takes_no_arguments() {
        assert!(!takes_arguments("async () => {\n switch (name) {}"));
        assert!(!takes_arguments("async function () { switch (name) {} }"));
        assert!(takes_arguments(
            "async (request) => { switch (request.params.name) {} }"
        ));
        assert!(takes_arguments("async ({ params }) => params.name"));
        assert!(takes_arguments("async request => request.params.name"));
    }
}
