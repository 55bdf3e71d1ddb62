//! Reading tool parameters from literal schemas: zod shapes and JSON-schema `properties`.

use tree_sitter::Node;

use super::syntax::{self, arguments, object_entries, string_value, text, unwrap};
use crate::inventory::Param;

/// Where a tool's input schema is: written inline (already read), or a named value to look up.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaRef {
    Inline(Vec<Param>),
    Named(String),
    None,
}

/// Zod methods that make a parameter optional for the caller.
const OPTIONAL_METHODS: &[&str] = &["optional", "nullish", "default", "catch"];

/// Reads a schema expression: `z.object({...})`, a raw zod shape, a JSON schema, a call that
/// converts one (`zodToJsonSchema(X)`), or a name that refers to one declared elsewhere.
pub fn read_schema(node: Node, src: &str) -> SchemaRef {
    let node = unwrap(node);
    match node.kind() {
        "object" => SchemaRef::Inline(read_object_schema(node, src)),
        "identifier" | "member_expression" => match syntax::path(node, src) {
            Some(p) => SchemaRef::Named(p),
            None => SchemaRef::None,
        },
        "call_expression" => read_schema_call(node, src),
        _ => SchemaRef::None,
    }
}

/// `Schema.shape` and `Schema.inputSchema` are views of the named schema itself.
pub fn strip_view_suffix(path: &str) -> &str {
    for suffix in [".shape", ".schema", ".inputSchema"] {
        if let Some(stripped) = path.strip_suffix(suffix) {
            return stripped;
        }
    }
    path
}

fn read_schema_call(node: Node, src: &str) -> SchemaRef {
    let Some(function) = node.child_by_field_name("function") else {
        return SchemaRef::None;
    };
    let args = node
        .child_by_field_name("arguments")
        .map(arguments)
        .unwrap_or_default();
    if function.kind() == "member_expression" {
        let method = function
            .child_by_field_name("property")
            .map(|p| text(p, src));
        if matches!(method, Some("object" | "strictObject" | "looseObject")) {
            return args
                .first()
                .map_or(SchemaRef::None, |a| read_schema(*a, src));
        }
        // A refinement of an object schema, e.g. `z.object({...}).strict().describe("..")`.
        if let Some(receiver) = function.child_by_field_name("object")
            && unwrap(receiver).kind() == "call_expression"
        {
            return read_schema(receiver, src);
        }
    }
    // A converter such as zodToJsonSchema(X) or z.toJSONSchema(X): read its argument.
    args.first()
        .map_or(SchemaRef::None, |a| read_schema(*a, src))
}

/// An object is a JSON schema when it has `properties` (or is a bare `{type: "object"}`);
/// otherwise each of its entries is one zod-typed parameter.
fn read_object_schema(object: Node, src: &str) -> Vec<Param> {
    let entries = object_entries(object, src);
    let get = |k: &str| {
        entries
            .iter()
            .find(|(key, _, _)| key == k)
            .map(|(_, v, _)| *v)
    };
    if let Some(props) = get("properties") {
        let required = get("required")
            .map(|r| string_array(r, src))
            .unwrap_or_default();
        let props = unwrap(props);
        if props.kind() != "object" {
            return Vec::new();
        }
        return object_entries(props, src)
            .into_iter()
            .map(|(name, value, _)| json_param(&name, value, required.contains(&name), src))
            .collect();
    }
    if get("type").is_some_and(|t| string_value(t, src).is_some()) {
        return Vec::new();
    }
    entries
        .into_iter()
        .map(|(name, value, _)| zod_param(name, value, src))
        .collect()
}

fn string_array(node: Node, src: &str) -> Vec<String> {
    let node = unwrap(node);
    if node.kind() != "array" {
        return Vec::new();
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter_map(|n| string_value(n, src))
        .collect()
}

fn json_param(name: &str, value: Node, required: bool, src: &str) -> Param {
    let value = unwrap(value);
    let mut param = Param {
        name: name.to_string(),
        ty: None,
        description: None,
        required,
    };
    if value.kind() == "object" {
        for (key, v, _) in object_entries(value, src) {
            match key.as_str() {
                "type" => {
                    param.ty = string_value(v, src).or_else(|| Some(text(v, src).to_string()))
                }
                "description" => param.description = string_value(v, src),
                "enum" if param.ty.is_none() => param.ty = Some("enum".into()),
                _ => {}
            }
        }
    }
    param
}

/// Reads a zod chain such as `z.string().min(1).optional().describe("City name")`.
fn zod_param(name: String, value: Node, src: &str) -> Param {
    let mut param = Param {
        name,
        ty: None,
        description: None,
        required: true,
    };
    let mut node = unwrap(value);
    while node.kind() == "call_expression" {
        let Some(function) = node.child_by_field_name("function") else {
            break;
        };
        let args = node
            .child_by_field_name("arguments")
            .map(arguments)
            .unwrap_or_default();
        if function.kind() != "member_expression" {
            break;
        }
        let method = function
            .child_by_field_name("property")
            .map(|p| text(p, src))
            .unwrap_or("");
        let receiver = function.child_by_field_name("object").map(unwrap);
        match method {
            "describe" if param.description.is_none() => {
                param.description = args.first().and_then(|a| string_value(*a, src));
            }
            m if OPTIONAL_METHODS.contains(&m) => param.required = false,
            _ => {}
        }
        match receiver {
            Some(r) if r.kind() == "call_expression" => node = r,
            // The innermost call, on `z` or `zod_1.z`, names the type.
            _ => {
                param.ty = Some(method.to_string());
                break;
            }
        }
    }
    param
}
