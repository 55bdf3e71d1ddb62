//! The arguments of a JavaScript registration call, read from its text: where a tool's name,
//! description, input schema and handler are passed to `server.registerTool(name, { description,
//! inputSchema }, handler)` or `server.tool(name, description, schema, [annotations,] handler)`,
//! whatever expressions they are (`CURRENT_TIME.name`, a constant's field). A new form of the
//! tool is a copy of the call with these arguments rewritten, where anchoring found the values
//! declared elsewhere (a definition object the call reads its fields from).

use mcpevol_anchor::grammar::Lang;
use tree_sitter::Node;

use mcpevol_core::inventory::Span;

/// Byte ranges, in the registration's file, of the arguments of its call.
#[derive(Debug, PartialEq)]
pub struct CallSites {
    pub name: (usize, usize),
    pub description: (usize, usize),
    pub schema: (usize, usize),
    pub handler: (usize, usize),
}

/// The arguments of the registration call `reg` (its file's text being `text`), where it is
/// one of the two calls this module reads and each argument is there.
pub fn read(text: &str, reg: &Span) -> Option<CallSites> {
    let region = text.get(reg.bytes.0..reg.bytes.1)?;
    let tree = mcpevol_anchor::parse(region, Lang::TypeScript)?;
    let call = first_call(tree.root_node())?;
    let callee = &region[call.child_by_field_name("function")?.byte_range()];
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let args: Vec<Node> = (args.named_children(&mut cursor))
        .filter(|a| a.kind() != "comment")
        .collect();
    let at = |n: Node| (reg.bytes.0 + n.start_byte(), reg.bytes.0 + n.end_byte());
    // The callback, written in the call or named (`handleGetNote`, `handlers.getNote`), or
    // made by a call (`defaultTool(TOOL_ADD_EDGE, context)`), which a copy makes again.
    let handler = *args.last()?;
    if !matches!(
        handler.kind(),
        "arrow_function"
            | "function_expression"
            | "function"
            | "identifier"
            | "member_expression"
            | "call_expression"
    ) {
        return None;
    }
    if callee.ends_with(".registerTool") && args.len() == 3 && args[1].kind() == "object" {
        let field = |key: &str| {
            let mut c = args[1].walk();
            let pairs: Vec<Node> = args[1].named_children(&mut c).collect();
            pairs.into_iter().find_map(|p| {
                let k = p.child_by_field_name("key")?;
                (p.kind() == "pair" && region[k.byte_range()].trim_matches(['"', '\'']) == key)
                    .then(|| p.child_by_field_name("value"))
                    .flatten()
            })
        };
        return Some(CallSites {
            name: at(args[0]),
            description: at(field("description")?),
            schema: at(field("inputSchema")?),
            handler: at(handler),
        });
    }
    // `server.tool(name, description, schema, handler)`, with annotations before the handler
    // or not: fewer arguments leave it unknown which one is which.
    if callee.ends_with(".tool") && (4..=5).contains(&args.len()) {
        return Some(CallSites {
            name: at(args[0]),
            description: at(args[1]),
            schema: at(args[2]),
            handler: at(handler),
        });
    }
    None
}

fn first_call(n: Node) -> Option<Node> {
    if n.kind() == "call_expression" {
        return Some(n);
    }
    let mut cursor = n.walk();
    let children: Vec<Node> = n.named_children(&mut cursor).collect();
    children.into_iter().find_map(first_call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(text: &str) -> Span {
        Span {
            file: "x.js".into(),
            start_line: 1,
            end_line: 1,
            bytes: (0, text.len()),
        }
    }

    #[test]
    fn the_arguments_of_a_register_tool_call_are_found_whatever_they_are() {
        let text = "server.registerTool(\n  T.name,\n  { description: T.description, inputSchema: T.schema },\n  (args) => ({ content: [] })\n)";
        let s = read(text, &span(text)).expect("a registerTool call");
        assert_eq!(&text[s.name.0..s.name.1], "T.name");
        assert_eq!(&text[s.description.0..s.description.1], "T.description");
        assert_eq!(&text[s.schema.0..s.schema.1], "T.schema");
        assert!(text[s.handler.0..s.handler.1].starts_with("(args) =>"));
    }

    #[test]
    fn a_tool_call_is_read_only_where_its_arguments_are_told_apart() {
        let four = "server.tool(N, D, S.shape, async (a) => a)";
        let s = read(four, &span(four)).expect("four arguments");
        assert_eq!(&four[s.schema.0..s.schema.1], "S.shape");
        let three = "server.tool(N, S.shape, async (a) => a)";
        assert_eq!(read(three, &span(three)), None);
        let named = "server.tool(N, D, S, handleIt)";
        let s = read(named, &span(named)).expect("a named handler");
        assert_eq!(&named[s.handler.0..s.handler.1], "handleIt");
        let object = "server.tool(N, D, S, { a: 1 })";
        assert_eq!(read(object, &span(object)), None);
    }
}
