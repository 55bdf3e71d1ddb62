; Every object literal. Tool definitions ({ name, description, inputSchema }), registries keyed by
; tool name ({ get_time: { inputSchema, handler } }) and handler maps ({ echo: async (a) => ... })
; are told apart by their keys, which is easier to say in Rust than in a query.
(object) @object
