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

; A method of the server's own making that registers one tool as `tool` does, positionally
; (name, description, [shape], [annotations], handler), whatever it wraps around the call:
;   this.addJsonOutputTool("list_clusters", "Lists the clusters", { name: z.string() }, cb)
;   server.addToolWithReadAccess("teams-list", "Lists the teams", async () => ...)
; That the last argument is a handler is checked in Rust.
(call_expression
  function: (member_expression
    property: (property_identifier) @method)
  arguments: (arguments
    .
    [(string) (template_string)]
    .
    [(string) (template_string)]
    .
    (_)) @args
  (#match? @method "Tool")
  (#not-any-of? @method "tool" "registerTool" "registerToolTask" "addTool")) @call
