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
; The object is found among the arguments in Rust: a query would report only one of them.
(call_expression
  arguments: (arguments
    [(arrow_function) (function_expression)] @handler) @args) @refcall
