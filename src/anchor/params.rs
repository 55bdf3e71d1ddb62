//! Reading tool parameters from literal schemas: zod shapes and JSON-schema `properties`, with
//! the places a mutator edits them.

use tree_sitter::Node;

use super::syntax::{self, arguments, object_entries, span, string_value, text, unwrap};
use crate::inventory::{Param, ParamSite, SchemaSite};

/// A schema written out in the source: its parameters and where they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub params: Vec<Param>,
    pub site: SchemaSite,
}

/// Where a tool's input schema is: written inline (already read), or a named value to look up.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaRef {
    Inline(Schema),
    Named(String),
    None,
}

/// Zod methods that make a parameter optional for the caller.
const OPTIONAL_METHODS: &[&str] = &["optional", "nullish", "default", "catch"];

/// Reads a schema expression: `z.object({...})`, a raw zod shape, a JSON schema, a call that
/// converts one (`zodToJsonSchema(X)`), or a name that refers to one declared elsewhere.
pub fn read_schema(node: Node, src: &str, rel: &str) -> SchemaRef {
    let node = unwrap(node);
    match node.kind() {
        "object" => SchemaRef::Inline(read_object_schema(node, src, rel)),
        "identifier" | "member_expression" => match syntax::path(node, src) {
            Some(p) => SchemaRef::Named(p),
            None => SchemaRef::None,
        },
        "call_expression" => read_schema_call(node, src, rel),
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

/// Zod methods whose result has the parameters of their receiver (their arguments are not
/// schemas: `omit({ models: true })` names keys to drop).
const SAME_SHAPE_METHODS: &[&str] = &[
    "strict",
    "passthrough",
    "strip",
    "describe",
    "omit",
    "pick",
    "partial",
    "deepPartial",
    "required",
    "refine",
    "superRefine",
    "transform",
    "default",
    "catch",
    "optional",
    "nullable",
    "readonly",
    "brand",
    "meta",
];

fn read_schema_call(node: Node, src: &str, rel: &str) -> SchemaRef {
    let Some(function) = node.child_by_field_name("function") else {
        return SchemaRef::None;
    };
    let args = node
        .child_by_field_name("arguments")
        .map(arguments)
        .unwrap_or_default();
    let first = || {
        args.first()
            .map_or(SchemaRef::None, |a| read_schema(*a, src, rel))
    };
    if function.kind() != "member_expression" {
        // A converter such as zodToJsonSchema(X): read its argument.
        return first();
    }
    let method = function
        .child_by_field_name("property")
        .map_or("", |p| text(p, src));
    let receiver = function.child_by_field_name("object");
    match method {
        "object" | "strictObject" | "looseObject" => first(),
        // `Base.extend({...})`: the new entries are what this expression writes out; the
        // inherited ones stay in Base. Edits go into the extension, which clients see.
        "extend" | "merge" | "augment" => first(),
        m if SAME_SHAPE_METHODS.contains(&m) => {
            receiver.map_or(SchemaRef::None, |r| read_schema(r, src, rel))
        }
        // `z.toJSONSchema(X)` and the like.
        m if m.starts_with("to") && m.contains("Schema") => first(),
        _ => SchemaRef::None,
    }
}

/// An object is a JSON schema when it has `properties` (or is a bare `{type: "object"}`);
/// otherwise each of its entries is one zod-typed parameter.
fn read_object_schema(object: Node, src: &str, rel: &str) -> Schema {
    let entries = object_entries(object, src);
    let get = |k: &str| {
        entries
            .iter()
            .find(|(key, _, _)| key == k)
            .map(|(_, v, _)| *v)
    };
    let empty_site = |json| SchemaSite {
        object: span(object, rel),
        json,
        json_root: json.then(|| span(object, rel)),
        zod: None,
        params: Vec::new(),
        python: None,
    };
    if let Some(props) = get("properties") {
        let required = get("required")
            .map(|r| string_array(r, src))
            .unwrap_or_default();
        let props = unwrap(props);
        if props.kind() != "object" {
            return Schema {
                params: Vec::new(),
                site: empty_site(true),
            };
        }
        let mut site = empty_site(true);
        site.object = span(props, rel);
        let mut params = Vec::new();
        for (name, value, entry) in object_entries(props, src) {
            let (param, param_site) =
                json_param(&name, value, entry, required.contains(&name), src, rel);
            params.push(param);
            site.params.push(param_site);
        }
        return Schema { params, site };
    }
    if get("type").is_some_and(|t| string_value(t, src).is_some()) {
        return Schema {
            params: Vec::new(),
            site: empty_site(true),
        };
    }
    let mut site = empty_site(false);
    let mut params = Vec::new();
    for (name, value, entry) in entries {
        let (param, param_site, zod) = zod_param(name, value, entry, src, rel);
        site.zod = site.zod.or(zod);
        params.push(param);
        site.params.push(param_site);
    }
    Schema { params, site }
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

fn json_param(
    name: &str,
    value: Node,
    entry: Node,
    required: bool,
    src: &str,
    rel: &str,
) -> (Param, ParamSite) {
    let value = unwrap(value);
    let mut param = Param {
        name: name.to_string(),
        ty: None,
        description: None,
        required,
    };
    let mut site = ParamSite {
        name: name.to_string(),
        entry: span(entry, rel),
        value: span(value, rel),
        description: None,
        base: None,
        live_described: false,
    };
    if value.kind() == "object" {
        for (key, v, _) in object_entries(value, src) {
            match key.as_str() {
                "type" => {
                    param.ty = string_value(v, src).or_else(|| Some(text(v, src).to_string()))
                }
                "description" => {
                    param.description = string_value(v, src);
                    site.description = param.description.is_some().then(|| span(unwrap(v), rel));
                }
                "enum" if param.ty.is_none() => param.ty = Some("enum".into()),
                _ => {}
            }
        }
    }
    (param, site)
}

/// Reads a zod chain such as `z.string().min(1).optional().describe("City name")`; also returns
/// the receiver of its innermost call (`z`), which is how the file spells zod.
fn zod_param(
    name: String,
    value: Node,
    entry: Node,
    src: &str,
    rel: &str,
) -> (Param, ParamSite, Option<String>) {
    // mcp-framework's typed entries, `name: { type: z.string(), description: "..." }`: the zod
    // chain is in `type`, the description beside it. A new parameter would have to be written
    // in this form, so no zod spelling is returned to copy from.
    let object = unwrap(value);
    if object.kind() == "object" {
        let entries = object_entries(object, src);
        let get = |k: &str| {
            entries
                .iter()
                .find(|(key, _, _)| key == k)
                .map(|(_, v, _)| *v)
        };
        if let Some(ty) = get("type").filter(|t| unwrap(*t).kind() == "call_expression") {
            let (mut param, mut site, _) = zod_param(name, ty, entry, src, rel);
            if let Some(d) = get("description") {
                param.description = string_value(d, src);
                site.description = param.description.is_some().then(|| span(unwrap(d), rel));
            }
            return (param, site, None);
        }
    }
    let mut param = Param {
        name: name.clone(),
        ty: None,
        description: None,
        required: true,
    };
    let mut site = ParamSite {
        name,
        entry: span(entry, rel),
        value: span(value, rel),
        description: None,
        base: None,
        live_described: false,
    };
    let mut zod = None;
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
                site.description = args
                    .first()
                    .filter(|_| param.description.is_some())
                    .map(|a| span(*a, rel));
            }
            m if OPTIONAL_METHODS.contains(&m) => param.required = false,
            _ => {}
        }
        match receiver {
            Some(r) if r.kind() == "call_expression" => node = r,
            // The innermost call, on `z` or `zod_1.z`, names the type.
            r => {
                param.ty = Some(method.to_string());
                site.base = Some(span(node, rel));
                zod = r.and_then(|r| syntax::path(r, src));
                break;
            }
        }
    }
    (param, site, zod)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::{self, grammar::Lang};

    /// The schema of the first object literal in `src`.
    fn schema_of(src: &str) -> Schema {
        let tree = anchor::parse(src, Lang::JavaScript).unwrap();
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "object" {
                match read_schema(node, src, "a.js") {
                    SchemaRef::Inline(s) => return s,
                    other => panic!("not inline: {other:?}"),
                }
            }
            stack.extend(
                node.children(&mut cursor)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev(),
            );
        }
        panic!("no object in {src}");
    }

    #[test]
    fn typed_entries_read_the_zod_chain_in_type_and_the_description_beside_it() {
        let src = r#"const schema = {
  budgetId: { type: z.string().optional(), description: "The budget" },
  amount: { type: z.number(), description: "In dollars" },
};"#;
        let schema = schema_of(src);
        let got: Vec<(&str, Option<&str>, Option<&str>, bool)> = schema
            .params
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.ty.as_deref(),
                    p.description.as_deref(),
                    p.required,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("budgetId", Some("string"), Some("The budget"), false),
                ("amount", Some("number"), Some("In dollars"), true),
            ]
        );
        let site = &schema.site.params[0];
        let at = |span: &crate::inventory::Span| &src[span.bytes.0..span.bytes.1];
        assert_eq!(at(site.description.as_ref().unwrap()), "\"The budget\"");
        assert_eq!(at(site.base.as_ref().unwrap()), "z.string()");
        assert_eq!(at(&site.value), "z.string().optional()");
        // New parameters could not be written as plain zod here.
        assert_eq!(schema.site.zod, None);
    }

    #[test]
    fn plain_zod_entries_give_the_spelling_of_zod() {
        let schema = schema_of(r#"const s = { city: z.string().describe("City") };"#);
        assert_eq!(schema.params[0].description.as_deref(), Some("City"));
        assert_eq!(schema.site.zod.as_deref(), Some("z"));
    }
}
