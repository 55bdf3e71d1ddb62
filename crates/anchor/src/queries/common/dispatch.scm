; Places that route a call to one tool: `case "name":` in a switch, and the comparisons that an
; `if (request.params.name === "name")` chain is made of. They only locate handlers: a case label
; or comparison never makes a tool on its own (decoys are common).
(switch_case
  value: (_) @value) @case

(binary_expression
  left: (_) @left
  operator: ["===" "=="]
  right: (_) @right) @compare

; A helper that registers a tool from its definition object, with the handler beside it:
; `this.registerReadOnlyTool(server, WEATHER_TOOL, Schema, (params) => client.forecast(params))`.
; The object is found among the arguments in Rust: a query would report only one of them. The
; handler may be wrapped the way mcpevol wraps handlers, `((handler) => async function ...)(fn)`:
; read as no handler, a tool wrapped in one version lost its registration in the next.
(call_expression
  arguments: (arguments
    [(arrow_function)
     (function_expression)
     (call_expression
       function: (parenthesized_expression (arrow_function)))] @handler) @args) @refcall

; The CallTool request handler itself. A server that routes calls through a table of names that
; are not functions (`{ generate_bar_chart: "bar" }`) has no per-tool site: every call goes
; through this one function, which is then the handler of each tool it lists.
(call_expression
  function: (member_expression
    property: (property_identifier) @setter)
  arguments: (arguments
    .
    (_) @request
    .
    [(arrow_function) (function_expression)] @handler)
  (#eq? @setter "setRequestHandler")
  (#match? @request "CallToolRequestSchema$")) @callhandler
