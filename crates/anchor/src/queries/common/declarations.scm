; Named values that tools refer to: string constants holding tool names, schemas declared apart
; from the tool, objects of constants, and handler functions passed by name.
(variable_declarator
  name: (identifier) @name
  value: (_) @value) @declarator

(function_declaration
  name: (identifier) @name) @function

; Compiled TypeScript enums and CommonJS exports: `ToolName["ECHO"] = "echo"`, `exports.X = "x"`.
(assignment_expression
  left: [(member_expression) (subscript_expression) (identifier)] @name
  right: [(string) (template_string)] @value) @assignment

; CommonJS exports of other values, `exports.ReadArgs = zod_1.z.object(BaseArgs)`, and the
; assignments esbuild makes of a module's constants in its lazy init (`var args; ... args = {...}`).
(assignment_expression
  left: [(member_expression) (identifier)] @name
  right: [(call_expression) (object) (member_expression) (identifier)] @value) @assignment

; Definition objects listed by name: `const TOOLS = [ECHO_TOOL, ADD_TOOL]`. Removing a tool
; held in a constant means removing it from such a list, not deleting the constant.
(array
  (identifier) @element)

; Tool instances listed for registration: `const tools = [new EchoTool(), new AddTool()]`.
(array
  (new_expression
    constructor: (identifier) @constructed) @instance)
