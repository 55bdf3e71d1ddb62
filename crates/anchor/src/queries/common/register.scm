; Calls that register one tool on a server object:
;   server.tool(name, [description], [schema], [annotations], handler)
;   server.registerTool(name, { description, inputSchema, ... }, handler)
;   server.experimental.tasks.registerToolTask(name, { ... }, handler)
;   server.addTool({ name, description, parameters, execute })        (fastmcp)
; The receiver is not checked: bundlers rename it, and no other common API uses these method names.
(call_expression
  function: (member_expression
    property: (property_identifier) @method)
  arguments: (arguments) @args
  (#any-of? @method "tool" "registerTool" "registerToolTask" "addTool")) @call
