//! Where a wrapper goes for a tool routed inside the request handler: the function that is
//! given the call, never one that takes no parameters.

use super::*;

/// A package whose request handler is `source`, with the tool `get_session` routed by a
/// `case` inside it.
fn package(source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "p", "version": "1.0.0", "main": "index.js"}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("index.js"), source).unwrap();
    dir
}

const HEAD: &str = r#"const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");
const server = new Server({ name: "p", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "get_session", description: "Gets a session", inputSchema: { type: "object", properties: { sessionId: { type: "string" } } } }] }));
"#;

fn router_of(body: &str) -> String {
    let dir = package(&format!("{HEAD}{body}"));
    let inventory = mcpevol_anchor::anchor(dir.path()).unwrap();
    let tool = inventory.tool("get_session").expect("the tool is anchored");
    let src = std::fs::read_to_string(dir.path().join("index.js")).unwrap();
    match site(dir.path(), tool).expect("a wrapper can be placed") {
        Site::Router(s) | Site::RouterBody(s) => src[s.bytes.0..s.bytes.1].to_string(),
        Site::Own(s) | Site::OwnBody(s) => panic!("not routed: {}", &src[s.bytes.0..s.bytes.1]),
    }
}

#[test]
fn a_tool_routed_inside_a_parameterless_iife_is_wrapped_at_the_request_handler() {
    let wrapped = router_of(
        r#"server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  const result = await (async () => {
    switch (request.params.name) {
      case "get_session":
        return { content: [{ type: "text", text: String(args.sessionId) }] };
      default:
        throw new Error("unknown tool");
    }
  })();
  return result;
});
"#,
    );
    assert!(
        wrapped.starts_with("async (request) =>"),
        "the wrapper must get the request: {wrapped}"
    );
}

#[test]
fn a_tool_routed_directly_in_the_request_handler_is_wrapped_there() {
    let wrapped = router_of(
        r#"server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case "get_session":
      return { content: [{ type: "text", text: "s" }] };
  }
  throw new Error("unknown tool");
});
"#,
    );
    assert!(wrapped.starts_with("async (request) =>"), "{wrapped}");
}
