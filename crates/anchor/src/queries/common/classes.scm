; Class-based tools (mcp-framework and similar): `class EchoTool { name = "echo"; execute() {} }`.
; The field and method names are read in Rust because the two grammars name field nodes differently.
(class_declaration
  body: (class_body) @body) @class

(class
  body: (class_body) @body) @class
