; Calls that may define or register a tool: `Tool(name=..., inputSchema=...)` (also
; `types.Tool(...)`), `mcp.add_tool(fn, name=...)`, `mcp.tool(name="x")(fn)`.
(call
  function: [(identifier) (attribute)] @callee
  arguments: (argument_list) @args
  (#match? @callee "(^|\\.)(Tool|add_tool)$")) @call

(call
  function: (call
    function: (attribute attribute: (identifier) @method)
    arguments: (argument_list) @options)
  arguments: (argument_list) @args
  (#eq? @method "tool")) @wrapcall
