; A helper that registers one tool, whatever it is called, given the tool's name as a literal
; next to its configuration object and then its handler:
;   registerAppTool(server, "get-time", { description, inputSchema }, async () => ...)
;   j(server,"get-time",{description:"…",inputSchema:e.object({})},()=>{…})     (minified)
; Whether the object configures a tool (and not a prompt or resource) and whether the next
; argument can be a handler is decided in Rust. Register calls (`server.registerTool(...)`)
; match too; they are read as such first.
(call_expression
  arguments: (arguments
    [(string) (template_string)] @name
    .
    (object) @config
    .
    (_) @handler)) @helper
