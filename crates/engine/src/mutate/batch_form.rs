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
    free_name(tool, all)?;
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
/// (`search_nodes`: `batch_search_nodes`), as batch endpoints are named.
pub fn name_for(tool: &str) -> String {
    words::plural_name(tool).unwrap_or_else(|| words::prefixed(SUFFIX, tool))
}

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
