; TypeScript string enums that hold tool names: `enum ToolName { ECHO = "echo" }`.
(enum_declaration
  name: (identifier) @enum
  body: (enum_body
    (enum_assignment
      name: (property_identifier) @member
      value: (string) @value)))
