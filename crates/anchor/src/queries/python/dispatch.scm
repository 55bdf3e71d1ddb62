; Where calls are routed by tool name: `match name:` cases, `name == "x"` comparisons (in `if`
; and `elif` conditions), and dictionaries from names to handler functions.
(match_statement
  subject: (_) @subject
  body: (block (case_clause) @case))

(comparison_operator) @compare

(dictionary (pair key: (string) @key value: [(identifier) (attribute) (lambda)] @value) @pair)
