; Names other files and expressions refer to: module-level constants, classes (enums of tool
; names, pydantic models of parameters), functions, and names listed in lists; and calls on
; names listed in lists (`[handler.get_tool_description()]`), where a handler class's tool is
; listed.
(module (expression_statement (assignment left: (identifier) @name right: (_) @value)) @statement)

(class_definition name: (identifier) @classname body: (block) @body) @class

(function_definition name: (identifier) @fname) @function

(list (identifier) @element)

(list (call function: (attribute object: (identifier) @instance)) @listed_call)
