//! Reading tool parameters from literal schemas: zod shapes and JSON-schema `properties`, with
//! the places a mutator edits them.

use tree_sitter::Node;

use super::syntax::{self, arguments, object_entries, span, string_value, text, unwrap};
use super::text;
use mcpevol_core::inventory::{Param, ParamShape, ParamSite, SchemaSite};

mod held;
pub use held::{Links, read_param_chain};

/// A schema written out in the source: its parameters and where they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub params: Vec<Param>,
    pub site: SchemaSite,
    /// What the linker fills in from other declarations.
    pub links: Links,
}

/// Where a tool's input schema is: written inline (already read), or a named value to look up.
// Short-lived (one per registration or declaration read), so boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
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
        // `{ description, inputSchema }`: the schema declared under the key's own name.
        "shorthand_property_identifier" => SchemaRef::Named(text(node, src).to_string()),
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
        // `z.preprocess(fn, X)`: X, once `fn` has rewritten the arguments (aliases of keys).
        "preprocess" => args
            .get(1)
            .map_or(SchemaRef::None, |a| read_schema(*a, src, rel)),
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
        spreads: Vec::new(),
    };
    if let Some(props) = get("properties") {
        let required = get("required")
            .map(|r| string_array(r, src))
            .unwrap_or_default();
        let props = unwrap(props);
        if props.kind() != "object" {
            return Schema::new(Vec::new(), empty_site(true));
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
        return Schema::new(params, site);
    }
    if get("type").is_some_and(|t| string_value(t, src).is_some()) {
        return Schema::new(Vec::new(), empty_site(true));
    }
    let mut site = empty_site(false);
    let mut params = Vec::new();
    let links = Links::of_shape(object, &entries, src);
    for (name, value, entry) in entries {
        let (param, param_site, zod) = zod_param(name, value, entry, src, rel);
        site.zod = site.zod.or(zod);
        params.push(param);
        site.params.push(param_site);
    }
    Schema {
        params,
        site,
        links,
    }
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
        required,
        ..Param::default()
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
        let shape = &mut param.shape;
        for (key, v, _) in object_entries(value, src) {
            match key.as_str() {
                "type" => {
                    param.ty = string_value(v, src).or_else(|| Some(text(v, src).to_string()));
                    shape.integer |= param.ty.as_deref() == Some("integer");
                }
                "description" => {
                    let d = text::read_description(v, src, rel);
                    param.description = d.text.clone();
                    site.description = Some(d);
                }
                "enum" => {
                    shape.values = literal_array(v, src);
                    if param.ty.is_none() {
                        param.ty = Some("enum".into());
                    }
                }
                "default" => shape.default = literal(v, src),
                "minimum" | "minLength" | "minItems" => shape.min = number(v, src),
                "maximum" | "maxLength" | "maxItems" => shape.max = number(v, src),
                "format" => shape.format = string_value(v, src),
                "items" if unwrap(v).kind() == "object" => {
                    for (k, iv, _) in object_entries(unwrap(v), src) {
                        match k.as_str() {
                            "type" => shape.items = string_value(iv, src),
                            "properties" if unwrap(iv).kind() == "object" => {
                                shape.keys = keys(unwrap(iv), src)
                            }
                            _ => {}
                        }
                    }
                }
                "properties" if unwrap(v).kind() == "object" => shape.keys = keys(unwrap(v), src),
                _ => {}
            }
        }
    }
    (param, site)
}

fn keys(object: Node, src: &str) -> Vec<String> {
    object_entries(object, src)
        .into_iter()
        .map(|(k, _, _)| k)
        .collect()
}

/// A number as written (`10`, `-1`, `0.5`).
fn number(node: Node, src: &str) -> Option<String> {
    let node = unwrap(node);
    match node.kind() {
        "number" => Some(text(node, src).to_string()),
        "unary_expression" if node.named_child(0).is_some_and(|n| n.kind() == "number") => {
            Some(text(node, src).split_whitespace().collect())
        }
        _ => None,
    }
}

/// A literal value as a description would quote it: strings without quotes, numbers and
/// booleans as written; None for anything else.
fn literal(node: Node, src: &str) -> Option<String> {
    let node = unwrap(node);
    match node.kind() {
        "true" | "false" | "null" => Some(text(node, src).to_string()),
        _ => string_value(node, src).or_else(|| number(node, src)),
    }
}

fn literal_array(node: Node, src: &str) -> Vec<String> {
    let node = unwrap(node);
    if node.kind() != "array" {
        return Vec::new();
    }
    let mut cursor = node.walk();
    let values: Vec<Option<String>> = node
        .named_children(&mut cursor)
        .map(|n| literal(n, src))
        .collect();
    values
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// Zod methods that check a string's format, by the word a description uses.
const FORMATS: &[(&str, &str)] = &[
    ("email", "email"),
    ("url", "url"),
    ("uuid", "uuid"),
    ("datetime", "date-time"),
    ("date", "date"),
    ("time", "time"),
    ("ip", "ip"),
    ("ipv4", "ipv4"),
    ("ipv6", "ipv6"),
];

/// The innermost call of a zod chain (`z.string()` in `z.string().min(1)`) with its method.
fn zod_base<'t>(node: Node<'t>, src: &str) -> Option<(Node<'t>, String)> {
    let mut node = unwrap(node);
    loop {
        if node.kind() != "call_expression" {
            return None;
        }
        let function = node
            .child_by_field_name("function")
            .filter(|f| f.kind() == "member_expression")?;
        let method = function
            .child_by_field_name("property")
            .map(|p| text(p, src).to_string())?;
        match function.child_by_field_name("object").map(unwrap) {
            Some(r) if r.kind() == "call_expression" => node = r,
            _ => return Some((node, method)),
        }
    }
}

/// Reads a zod chain such as `z.string().min(1).optional().describe("City name")`; also returns
/// the receiver of its innermost call (`z`), which is how the file spells zod.
// Long: one walk down a zod call chain, an arm per zod method it reads.
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
                let d = text::read_description(d, src, rel);
                param.description = d.text.clone();
                site.description = Some(d);
            }
            return (param, site, None);
        }
    }
    let mut param = Param {
        name: name.clone(),
        required: true,
        ..Param::default()
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
        read_link(
            method,
            args.first().copied(),
            &mut param,
            &mut site,
            src,
            rel,
        );
        match receiver {
            Some(r) if r.kind() == "call_expression" => node = r,
            // The innermost call, on `z` or `zod_1.z`, names the type.
            r => {
                param.ty = Some(method.to_string());
                site.base = Some(span(node, rel));
                zod = r.and_then(|r| syntax::path(r, src));
                read_base(method, args.first().copied(), &mut param.shape, src);
                break;
            }
        }
    }
    (param, site, zod)
}

/// What one link of a zod chain says about its parameter: its description, that it is
/// optional (and its default), its bounds, that it is an integer, its format.
fn read_link(
    method: &str,
    first: Option<Node>,
    param: &mut Param,
    site: &mut ParamSite,
    src: &str,
    rel: &str,
) {
    let shape = &mut param.shape;
    match method {
        "describe" if site.description.is_none() => {
            if let Some(a) = first {
                let d = text::read_description(a, src, rel);
                param.description = d.text.clone();
                site.description = Some(d);
            }
        }
        m if OPTIONAL_METHODS.contains(&m) => {
            param.required = false;
            if m == "default" && shape.default.is_none() {
                shape.default = first.and_then(|a| literal(a, src));
            }
        }
        "min" | "gte" | "nonempty" | "length" if shape.min.is_none() => {
            shape.min = first.and_then(|a| number(a, src));
            if method == "nonempty" {
                shape.min = Some("1".into());
            }
        }
        "nonnegative" if shape.min.is_none() => shape.min = Some("0".into()),
        _ => {}
    }
    if matches!(method, "max" | "lte" | "length") && shape.max.is_none() {
        shape.max = first.and_then(|a| number(a, src));
    }
    if method == "int" {
        shape.integer = true;
    }
    if let Some((_, word)) = FORMATS.iter().find(|(m, _)| *m == method) {
        shape.format = Some(word.to_string());
    }
}

/// What the type call itself says: an enum's values, an array's items, an object's keys.
fn read_base(method: &str, arg: Option<Node>, shape: &mut ParamShape, src: &str) {
    let Some(arg) = arg.map(unwrap) else {
        return;
    };
    match method {
        "enum" => shape.values = literal_array(arg, src),
        "literal" => shape.values = literal(arg, src).into_iter().collect(),
        "object" | "strictObject" | "looseObject" if arg.kind() == "object" => {
            shape.keys = keys(arg, src)
        }
        "array" => {
            if let Some((inner, item)) = zod_base(arg, src) {
                if matches!(item.as_str(), "object" | "strictObject" | "looseObject")
                    && let Some(o) = inner
                        .child_by_field_name("arguments")
                        .and_then(|a| arguments(a).first().copied())
                        .map(unwrap)
                        .filter(|o| o.kind() == "object")
                {
                    shape.keys = keys(o, src);
                }
                shape.items = Some(item);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "params_tests.rs"]
mod tests;
