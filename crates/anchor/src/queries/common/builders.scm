; Builder chains that end in a registration:
;   server.tool("get_time").description("Current time").input({ tz: z.string() }).handler(fn)
; The last call of the chain hands over the handler; the links before it (the name, the
; description, the input schema) are read in Rust by walking down the chain. A handler may be
; wrapped in a call (`withAuth(fn)`, or the wrappers mcpevol writes around it).
(call_expression
  function: (member_expression
    object: (call_expression) @links
    property: (property_identifier) @method)
  arguments: (arguments
    .
    [(arrow_function) (function_expression) (identifier) (member_expression) (call_expression)] @handler
    .)
  (#any-of? @method "handler" "handle" "execute" "run" "action" "resolve" "implement" "callback")) @chain
