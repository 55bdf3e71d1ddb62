//! A batch form of a tool, as a new tool: it takes `items`, a list of the tool's argument sets,
//! runs the tool's own handler on each in turn and answers their content parts in order. Made
//! where the tool is registered with its name, description, zod shape and handler written out
//! in one call (`server.tool(...)`, `server.registerTool(...)`), which the copy rewrites.

use super::splice::contains;
use super::words;
use mcpevol_core::inventory::{DescriptionSite, SchemaSite, Span, Tool};

/// The parameter of a batch tool that holds the argument sets.
pub const ITEMS: &str = "items";
/// The most argument sets one call takes.
pub const MOST: usize = 10;
/// The suffix of a batch tool's name.
pub const SUFFIX: &str = "batch";

/// Where a batch form is written from: the registration call and, inside it, the tool's name,
/// description, zod shape and handler.
pub struct BatchSites<'t> {
    pub registration: &'t Span,
    pub name: &'t Span,
    pub description: &'t DescriptionSite,
    pub schema: &'t SchemaSite,
    pub zod: &'t str,
    pub handler: &'t Span,
}

/// The sites `tool`'s batch form is written from, or why it cannot be given one.
pub fn batchable<'t>(tool: &'t Tool, all: &[Tool]) -> Result<BatchSites<'t>, &'static str> {
    let sites = inline_sites(tool)?;
    if tool.params.is_empty() {
        return Err("it takes no arguments, so a batch of calls would repeat one answer");
    }
    plural_free(tool, all)?;
    Ok(sites)
}

/// Where `tool` is registered with its name, description, zod shape and handler written out
/// in one call (what a copy with all four rewritten is made of), or why it is not.
pub fn inline_sites(tool: &Tool) -> Result<BatchSites<'_>, &'static str> {
    let s = &tool.sites;
    let reg = s
        .registration
        .as_ref()
        .ok_or("no registration site was found")?;
    if !super::dialect::dialect_of(&reg.file).writes_batches() {
        return Err("a batch form is written for JavaScript registrations only");
    }
    let inside = |span: Option<&Span>| span.is_some_and(|inner| contains(reg, inner));
    let name = (s.name.as_ref())
        .filter(|n| inside(Some(n)))
        .ok_or("its name is not written where it is registered")?;
    let description = (s.description.as_ref())
        .filter(|d| inside(Some(&d.span)))
        .ok_or("its description is not written where it is registered")?;
    let schema = s
        .schema
        .as_ref()
        .ok_or("its parameters are not written out")?;
    let zod = (schema.zod.as_deref())
        .filter(|_| !schema.json && inside(Some(&schema.object)))
        .ok_or("its parameters are not a zod shape written where it is registered")?;
    let handler = (tool.handler.as_ref())
        .filter(|h| inside(Some(h)))
        .ok_or("its handler is not written where it is registered")?;
    Ok(BatchSites {
        registration: reg,
        name,
        description,
        schema,
        zod,
        handler,
    })
}

/// The name of `tool`'s batch form, or why it can have none: it answers in structured output
/// (a batch's joined answer has none), it takes a list already (a batch form does), or
/// another tool has that name.
pub fn free_name(tool: &Tool, all: &[Tool]) -> Result<String, &'static str> {
    if !tool.sites.output_keys.is_empty() {
        return Err("it declares structured output, which a batch's joined answer does not have");
    }
    plural_free(tool, all)
}

/// As [`free_name`], for a batch form whose copied registration leaves the output schema out
/// ([`without_output`]): its joined answer is content alone, and declares none.
pub fn plural_free(tool: &Tool, all: &[Tool]) -> Result<String, &'static str> {
    // A tool that takes a list (a batch form, `create_entities`) has its several already.
    if (tool.params.iter()).any(|p| p.required && p.ty.as_deref() == Some("array")) {
        return Err("it takes a list already");
    }
    let batch_name = name_for(&tool.name);
    if all.iter().any(|t| t.name == batch_name) {
        return Err("a tool already has the batch form's name");
    }
    Ok(batch_name)
}

/// The batch form's name: the tool's, its last word in the plural (`get_note`: `get_notes`),
/// as a maintainer names a tool that takes several of what the other takes one of; where the
/// name ends in a plural already (or in no noun), the tool's with `batch` before it
/// (`search_nodes`: `batch_search_nodes`), as batch endpoints are named. A name of one word, or
/// one ending in an action or a state (`puppeteer_navigate`, `echo`, `mark_task_done`), has
/// no noun to put in the plural: `puppeteer_navigates` reads as a verb, not as several.
pub fn name_for(tool: &str) -> String {
    let all = words::words(tool);
    let ends_in_noun = all.len() > 1
        && all
            .last()
            .is_some_and(|w| !ACTION_ENDS.contains(&w.as_str()));
    (words::plural_name(tool).filter(|_| ends_in_noun))
        .unwrap_or_else(|| words::prefixed(SUFFIX, tool))
}

/// Last words of tool names that are actions or states, not the nouns a batch form takes
/// several of.
const ACTION_ENDS: &[&str] = &[
    "add",
    "approve",
    "build",
    "calculate",
    "check",
    "click",
    "close",
    "compare",
    "complete",
    "convert",
    "deploy",
    "disable",
    "done",
    "download",
    "drag",
    "drop",
    "echo",
    "enable",
    "evaluate",
    "execute",
    "fill",
    "focus",
    "format",
    "hover",
    "install",
    "login",
    "logout",
    "navigate",
    "open",
    "press",
    "refresh",
    "reset",
    "run",
    "scroll",
    "search",
    "select",
    "start",
    "stop",
    "submit",
    "sum",
    "sync",
    "think",
    "toggle",
    "translate",
    "type",
    "upload",
    "validate",
    "wait",
];

/// The zod shape of the batch form: `items`, 1 to [`MOST`] objects of the tool's own `shape`.
pub fn shape(zod: &str, shape: &str, of: &str) -> String {
    items_shape(zod, &format!("{zod}.object({shape})"), of)
}

/// The zod shape of the batch form whose argument sets each match the zod schema `item`.
pub fn items_shape(zod: &str, item: &str, of: &str) -> String {
    let about = serde_json::to_string(&format!(
        "Argument sets for `{of}`, each as `{of}` takes them; run in order"
    ))
    .expect("a string serializes");
    format!("{{ {ITEMS}: {zod}.array({item}).min(1).max({MOST}).describe({about}) }}")
}

/// The batch form's handler: the tool's own `handler` (an expression, copied as it is, so that
/// a template literal in it keeps its text) held in a local and called on each argument set in
/// turn, the content parts of the answers joined (a bare string answer is one text part); the
/// first answer that is an error is the batch's answer. A plain function, as a maintainer
/// writes a loop over the single tool, and no wrapper: a later change of the batch form wraps
/// or edits it as it would any handler. Valid TypeScript as well; `indent` is that of the line
/// the handler starts on.
pub fn handler(handler: &str, indent: &str) -> String {
    let one = ["runOne", "runOneSet", "runSingle"]
        .into_iter()
        .find(|n| !handler.contains(n))
        .unwrap_or("runOneOfTheBatch");
    let lines = [
        (0, "async (args, ...rest) => {".to_string()),
        (1, format!("const {one} = {};", nested(handler))),
        (1, format!("const sets = args?.{ITEMS};")),
        (1, "if (!Array.isArray(sets) || sets.length === 0) {".to_string()),
        (2, format!("throw new Error(\"{ITEMS}: give at least one set of arguments\");")),
        (1, "}".to_string()),
        (1, "const content = [];".to_string()),
        (1, "for (const set of sets) {".to_string()),
        (2, format!("const answer = await {one}(set ?? {{}}, ...rest);")),
        (2, "if (answer?.isError) {".to_string()),
        (3, "return answer;".to_string()),
        (2, "}".to_string()),
        // A FastMCP `execute` may answer a bare string or one content part.
        (2, "content.push(...(Array.isArray(answer?.content) ? answer.content : typeof answer === \"string\" ? [{ type: \"text\", text: answer }] : answer?.type ? [answer] : []));".to_string()),
        (1, "}".to_string()),
        (1, "return { content };".to_string()),
        (0, "}".to_string()),
    ];
    laid_out(&lines, indent)
}

/// The handler as the registration passes it: the anchored `handler` with the calls that wrap
/// it (`gcpTool(hasCredentials, async (args) => ...)`, `withAuth(fn)`), as byte offsets in
/// `text`, the file the `registration` statement is in. A batch form runs that whole expression
/// on each argument set, so each set meets the gate or the check the tool's call meets, and the
/// batch's answer is the tool's answers joined.
pub fn wrapped_handler(
    text: &str,
    registration: (usize, usize),
    handler: (usize, usize),
) -> (usize, usize) {
    use mcpevol_anchor::grammar::Lang;
    let statement = &text[registration.0..registration.1];
    let Some(tree) = mcpevol_anchor::parse(statement, Lang::TypeScript) else {
        return handler;
    };
    let (start, end) = (handler.0 - registration.0, handler.1 - registration.0);
    let Some(mut node) = tree.root_node().descendant_for_byte_range(start, end) else {
        return handler;
    };
    while node.byte_range() == (start..end)
        && let Some(parent) = node.parent().filter(|p| p.byte_range() == (start..end))
    {
        node = parent;
    }
    // Up through the calls the handler is an argument of, while each is itself an argument of
    // another call: the outermost is the registration, whose argument this is.
    while let Some(call) = argument_of(node).filter(|c| argument_of(*c).is_some()) {
        node = call;
    }
    (
        node.start_byte() + registration.0,
        node.end_byte() + registration.0,
    )
}

/// The call `node` is an argument of.
fn argument_of(node: tree_sitter::Node<'_>) -> Option<tree_sitter::Node<'_>> {
    (node.parent().filter(|p| p.kind() == "arguments"))
        .and_then(|a| a.parent())
        .filter(|c| c.kind() == "call_expression")
}

/// Code `lines`, each at its depth (two spaces a level), the lines after the first starting
/// at `indent`: a function written where a handler was, at that handler's indent.
pub(crate) fn laid_out(lines: &[(usize, String)], indent: &str) -> String {
    let mut out = String::new();
    for (i, (depth, line)) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(&"  ".repeat(*depth));
        out.push_str(line);
    }
    out
}

/// A copied registration (`registration`, a call whose options object may declare
/// `outputSchema`) with that declaration taken out, the line it held with it: the batch form
/// answers the content parts of its calls joined, with no structured content, and a server
/// refuses an answer without the structured content its tool declares. As it is where it
/// declares none. The shallowest `outputSchema` is the registration's own; one nested deeper
/// belongs to the handler's code.
pub fn without_output(registration: &str) -> String {
    use mcpevol_anchor::grammar::Lang;
    let Some(tree) = mcpevol_anchor::parse(registration, Lang::TypeScript) else {
        return registration.to_string();
    };
    let mut found: Option<(usize, tree_sitter::Node)> = None;
    let mut stack = vec![(0usize, tree.root_node())];
    while let Some((depth, n)) = stack.pop() {
        if n.kind() == "pair"
            && let Some(key) = n.child_by_field_name("key")
            && registration[key.byte_range()].trim_matches(['"', '\'']) == "outputSchema"
            && found.is_none_or(|(d, _)| depth < d)
        {
            found = Some((depth, n));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).map(|c| (depth + 1, c)));
    }
    let Some((_, pair)) = found else {
        return registration.to_string();
    };
    let (mut start, mut end) = (pair.start_byte(), pair.end_byte());
    let rest = &registration[end..];
    let after = rest.len() - rest.trim_start().len();
    if rest[after..].starts_with(',') {
        // The comma after it, and the rest of its line where nothing else is on it.
        end += after + 1;
        let line = &registration[end..];
        let blank = line.len() - line.trim_start_matches([' ', '\t']).len();
        if line[blank..].starts_with('\n') {
            end += blank + 1;
            let head = &registration[..start];
            let indent = head.len() - head.trim_end_matches([' ', '\t']).len();
            if head[..head.len() - indent].ends_with('\n') {
                start -= indent;
            }
        } else {
            end += blank;
        }
    } else {
        // The last entry: the comma before it goes.
        let head = registration[..start].trim_end();
        if let Some(stripped) = head.strip_suffix(',') {
            start = stripped.len();
        }
    }
    format!("{}{}", &registration[..start], &registration[end..])
}

/// `code` with its lines after the first a level deeper, as it is when it moves into a block;
/// as it is where a line break is inside a string (a template literal spanning lines, a line
/// continued with `\\`), whose text the indent would change.
pub(crate) fn nested(code: &str) -> String {
    let in_string = code
        .lines()
        .any(|l| l.matches('`').count() % 2 == 1 || l.ends_with('\\'));
    if in_string {
        return code.to_string();
    }
    let mut lines = code.lines();
    let first = lines.next().unwrap_or_default().to_string();
    lines.fold(first, |out, l| match l.trim().is_empty() {
        true => format!("{out}\n{l}"),
        false => format!("{out}\n  {l}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_form_puts_a_noun_in_the_plural_and_prefixes_an_action() {
        assert_eq!(name_for("get_note"), "get_notes");
        assert_eq!(name_for("getRecipeById"), "getRecipeByIds");
        assert_eq!(name_for("puppeteer_navigate"), "batch_puppeteer_navigate");
        assert_eq!(name_for("echo"), "batch_echo");
        assert_eq!(name_for("mark_task_done"), "batch_mark_task_done");
        assert_eq!(name_for("search_nodes"), "batch_search_nodes");
    }

    #[test]
    fn a_copied_registration_loses_its_own_output_schema_and_keeps_the_handlers() {
        let reg = "server.registerTool(\"t\", {\n    inputSchema: { a: z.string() },\n    outputSchema: {\n        n: z.number()\n    },\n    annotations: {},\n}, async (a) => ({ content: [], structuredContent: { outputSchema: 1 } }));";
        let out = without_output(reg);
        assert_eq!(
            out,
            "server.registerTool(\"t\", {\n    inputSchema: { a: z.string() },\n    annotations: {},\n}, async (a) => ({ content: [], structuredContent: { outputSchema: 1 } }));"
        );
        let last = "s.registerTool('t', { description: 'd', outputSchema: O }, h)";
        assert_eq!(
            without_output(last),
            "s.registerTool('t', { description: 'd' }, h)"
        );
        let none = "s.tool('t', 'd', { a: z.string() }, h)";
        assert_eq!(without_output(none), none);
    }

    #[test]
    fn a_handler_passed_through_wrapping_calls_is_copied_with_them() {
        let text = "// tools\nserver.registerTool('get', { inputSchema: {} }, gate(ok, withLog(async (a) => a)));\n";
        let reg = (text.find("server").unwrap(), text.len() - 1);
        let inner = text.find("async").unwrap();
        let handler = (inner, text.find("a)))").unwrap() + 1);
        let (start, end) = wrapped_handler(text, reg, handler);
        assert_eq!(&text[start..end], "gate(ok, withLog(async (a) => a))");
        // A handler passed as it is stays as it is.
        let plain = "server.tool('get', {}, async (a) => a);";
        let at = plain.find("async").unwrap();
        let (start, end) = wrapped_handler(plain, (0, plain.len()), (at, plain.len() - 2));
        assert_eq!(&plain[start..end], "async (a) => a");
    }

    #[test]
    fn the_batch_shape_nests_the_tools_own_shape_in_a_bounded_array() {
        let s = shape("z", "{ q: z.string() }", "search");
        assert!(
            s.starts_with("{ items: z.array(z.object({ q: z.string() })).min(1).max(10)"),
            "{s}"
        );
    }

    #[test]
    fn the_batch_handler_calls_the_original_once_per_set_and_stops_at_an_error() {
        let h = handler(
            "async ({ q }) => ({ content: [{ type: \"text\", text: q }] })",
            "  ",
        );
        assert!(h.contains("for (const set of sets)"), "{h}");
        assert!(h.contains("if (answer?.isError)"), "{h}");
        assert!(h.contains(
            "\n    const runOne = async ({ q }) => ({ content: [{ type: \"text\", text: q }] });"
        ));
        assert!(h.contains("await runOne(set ?? {}, ...rest)"), "{h}");
        assert!(h.ends_with("\n  }"), "{h}");
        assert!(
            !h.contains("handler.apply"),
            "no wrapper around the copy: {h}"
        );
    }

    #[test]
    fn a_copied_handler_moves_a_level_in_unless_a_string_spans_its_lines() {
        assert_eq!(
            nested("async () => {\n  go();\n}"),
            "async () => {\n    go();\n  }"
        );
        let template = "async () => `a\n  b`";
        assert_eq!(nested(template), template);
    }
}
