; Calls that may define or register a tool: `Tool(name=..., inputSchema=...)` (also
; `types.Tool(...)`), `mcp.add_tool(fn, name=...)`, `mcp.tool(name="x")(fn)`, and a tool object
; copied under another name, `TOOL.model_copy(update={"name": ...})`.
(call
  function: [(identifier) (attribute)] @callee
  arguments: (argument_list) @args
  (#match? @callee "(^|\\.)(Tool|add_tool|model_copy)$")) @call

(call
  function: (call
    function: (attribute attribute: (identifier) @method)
    arguments: (argument_list) @options)
  arguments: (argument_list) @args
  (#eq? @method "tool")) @wrapcall
