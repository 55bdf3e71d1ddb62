; Places that route a call to one tool: `case "name":` in a switch, and the comparisons that an
; `if (request.params.name === "name")` chain is made of. They only locate handlers: a case label
; or comparison never makes a tool on its own (decoys are common).
(switch_case
  value: (_) @value) @case

(binary_expression
  left: (_) @left
  operator: ["===" "=="]
  right: (_) @right) @compare
