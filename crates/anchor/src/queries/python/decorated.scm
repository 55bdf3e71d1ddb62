; A decorated function: `@mcp.tool()`, `@mcp.tool(name="x")`, `@mcp.tool`, `@server.call_tool()`,
; `@server.list_tools()`. One match per decorator; the reader keeps the ones it knows.
(decorated_definition
  (decorator) @decorator
  definition: (function_definition) @function) @decorated
