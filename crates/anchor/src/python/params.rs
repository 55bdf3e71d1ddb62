//! Reading a Python tool's parameters: a function signature with type hints (FastMCP), a
//! pydantic model's fields, or a JSON schema written as a dict literal, with the places a
//! mutator edits them.

use tree_sitter::Node;

use super::syntax::{arguments, keyword, last_segment, path, string_value, unwrap};
use crate::params::{Schema, SchemaRef};
use crate::syntax::{span, text};
use mcpevol_core::inventory::{Param, ParamSite, PyParams, SchemaSite};

/// The entries of a dict literal with string keys: `(key, value, pair)`.
pub fn dict_entries<'t>(dict: Node<'t>, src: &str) -> Vec<(String, Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = dict.walk();
    for pair in dict.named_children(&mut cursor) {
        if pair.kind() != "pair" {
            continue;
        }
        if let (Some(k), Some(v)) = (
            pair.child_by_field_name("key"),
            pair.child_by_field_name("value"),
        ) && let Some(key) = string_value(k, src)
        {
            out.push((key, v, pair));
        }
    }
    out
}

/// What an `inputSchema=` value is: a dict literal, `Model.model_json_schema()` (or pydantic
/// 1's `Model.schema()`), or a name declared elsewhere.
pub fn read_schema(node: Node, src: &str, rel: &str) -> SchemaRef {
    let node = unwrap(node);
    match node.kind() {
        "dictionary" => match dict_schema(node, src, rel) {
            Some(s) => SchemaRef::Inline(s),
            None => SchemaRef::None,
        },
        "identifier" | "attribute" => path(node, src).map_or(SchemaRef::None, SchemaRef::Named),
        "call" => {
            let Some(function) = node.child_by_field_name("function") else {
                return SchemaRef::None;
            };
            let callee = path(function, src).unwrap_or_default();
            match callee.rsplit_once('.') {
                Some((model, "model_json_schema" | "schema" | "json_schema")) => {
                    SchemaRef::Named(model.to_string())
                }
                _ => SchemaRef::None,
            }
        }
        _ => SchemaRef::None,
    }
}

/// A JSON schema dict (`{"type": "object", "properties": {...}, "required": [...]}`).
pub fn dict_schema(dict: Node, src: &str, rel: &str) -> Option<Schema> {
    let entries = dict_entries(dict, src);
    let get = |k: &str| {
        entries
            .iter()
            .find(|(key, _, _)| key == k)
            .map(|(_, v, _)| *v)
    };
    let props = get("properties").map(unwrap);
    if props.is_none() && get("type").is_none() {
        return None;
    }
    let required: Vec<String> = get("required")
        .map(unwrap)
        .filter(|r| r.kind() == "list")
        .map(|r| {
            let mut c = r.walk();
            r.named_children(&mut c)
                .filter_map(|n| string_value(n, src))
                .collect()
        })
        .unwrap_or_default();
    let mut site = SchemaSite {
        object: span(props.unwrap_or(dict), rel),
        json: true,
        json_root: Some(span(dict, rel)),
        zod: None,
        params: Vec::new(),
        python: Some(PyParams::Dict),
        spreads: Vec::new(),
    };
    let mut params = Vec::new();
    if let Some(props) = props.filter(|p| p.kind() == "dictionary") {
        for (name, value, pair) in dict_entries(props, src) {
            let value = unwrap(value);
            let mut param = Param {
                name: name.clone(),
                ty: None,
                description: None,
                required: required.contains(&name),
                ..Param::default()
            };
            let mut description = None;
            if value.kind() == "dictionary" {
                for (key, v, _) in dict_entries(value, src) {
                    match key.as_str() {
                        "type" => param.ty = string_value(v, src),
                        // An f-string description is still the place a new one goes.
                        "description" => {
                            param.description = string_value(v, src);
                            description = Some(super::syntax::description_site(v, src, rel));
                        }
                        "enum" if param.ty.is_none() => param.ty = Some("enum".into()),
                        _ => {}
                    }
                }
            }
            params.push(param);
            site.params.push(ParamSite {
                name,
                entry: span(pair, rel),
                value: span(value, rel),
                description,
                base: None,
                live_described: false,
            });
        }
    }
    Some(Schema::new(params, site))
}

/// The parameters of a FastMCP tool function: every parameter but `self`/`cls`, splats and the
/// injected context.
pub fn signature(parameters: Node, src: &str, rel: &str) -> Schema {
    let mut site = SchemaSite {
        object: span(parameters, rel),
        json: false,
        json_root: None,
        zod: None,
        params: Vec::new(),
        python: Some(PyParams::Signature),
        spreads: Vec::new(),
    };
    let mut params = Vec::new();
    let mut cursor = parameters.walk();
    for p in parameters.named_children(&mut cursor) {
        let (name, ty, default) = match p.kind() {
            "identifier" => (Some(p), None, None),
            "typed_parameter" => (
                p.named_child(0).filter(|n| n.kind() == "identifier"),
                p.child_by_field_name("type"),
                None,
            ),
            "default_parameter" => (
                p.child_by_field_name("name"),
                None,
                p.child_by_field_name("value"),
            ),
            "typed_default_parameter" => (
                p.child_by_field_name("name"),
                p.child_by_field_name("type"),
                p.child_by_field_name("value"),
            ),
            _ => continue,
        };
        let Some(name) = name.filter(|n| n.kind() == "identifier") else {
            continue;
        };
        let name = text(name, src).to_string();
        if matches!(name.as_str(), "self" | "cls")
            || ty.is_some_and(|t| text(t, src).contains("Context"))
        {
            continue;
        }
        let (param, param_site) = field(name, p, ty, default, src, rel);
        params.push(param);
        site.params.push(param_site);
    }
    Schema::new(params, site)
}

/// A pydantic model's fields (`name: T = default` in the class body), when it has any.
pub fn model(body: Node, src: &str, rel: &str) -> Option<Schema> {
    let mut site = SchemaSite {
        object: span(body, rel),
        json: false,
        json_root: None,
        zod: None,
        params: Vec::new(),
        python: Some(PyParams::Model),
        spreads: Vec::new(),
    };
    let mut params = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        if statement.kind() != "expression_statement" {
            continue;
        }
        let Some(assignment) = statement
            .named_child(0)
            .filter(|a| a.kind() == "assignment")
        else {
            continue;
        };
        let (Some(left), Some(ty)) = (
            assignment.child_by_field_name("left"),
            assignment.child_by_field_name("type"),
        ) else {
            continue;
        };
        if left.kind() != "identifier" || text(ty, src).starts_with("ClassVar") {
            continue;
        }
        let name = text(left, src).to_string();
        let default = assignment.child_by_field_name("right");
        let (param, param_site) = field(name, statement, Some(ty), default, src, rel);
        params.push(param);
        site.params.push(param_site);
    }
    (!params.is_empty()).then_some(Schema::new(params, site))
}

/// One parameter or field: its JSON type, whether it is required, and its description from
/// `Field(description=...)` (in `Annotated[...]` or as the default).
fn field(
    name: String,
    entry: Node,
    ty: Option<Node>,
    default: Option<Node>,
    src: &str,
    rel: &str,
) -> (Param, ParamSite) {
    let field_call = default
        .filter(|d| is_field_call(*d, src))
        .or_else(|| ty.and_then(|t| find_field_call(t, src)));
    let (keywords, positional) = field_call
        .and_then(|f| f.child_by_field_name("arguments"))
        .map(|a| arguments(a, src))
        .unwrap_or_default();
    let description_node = keyword(&keywords, "description")
        .filter(|d| string_value(*d, src).is_some())
        .or_else(|| ty.and_then(|t| annotated_text(t, src)));
    let has_default = match default {
        None => field_call.is_some_and(|_| {
            keyword(&keywords, "default").is_some()
                || keyword(&keywords, "default_factory").is_some()
                || positional.first().is_some_and(|p| text(*p, src) != "...")
        }),
        Some(d) if is_field_call(d, src) => {
            keyword(&keywords, "default").is_some()
                || keyword(&keywords, "default_factory").is_some()
                || positional.first().is_some_and(|p| text(*p, src) != "...")
        }
        Some(_) => true,
    };
    let param = Param {
        name: name.clone(),
        ty: ty.and_then(|t| json_type(text(t, src))),
        description: description_node.and_then(|d| string_value(d, src)),
        required: !has_default,
        ..Param::default()
    };
    let site = ParamSite {
        name,
        entry: span(entry, rel),
        value: span(ty.unwrap_or(entry), rel),
        description: description_node.map(|d| super::syntax::description_site(d, src, rel)),
        base: None,
        live_described: false,
    };
    (param, site)
}

/// The text an annotation carries beside its type (`Annotated[str, "The path to read"]`),
/// which FastMCP lists as the parameter's description.
fn annotated_text<'t>(node: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut node = unwrap(node);
    while node.kind() == "type" {
        node = node.named_child(0)?;
    }
    // In an annotation, `Annotated[...]` parses as a generic type: the name, then its
    // parameters, each a `type`; elsewhere as a subscript.
    let (name, items): (Node, Vec<Node>) = match node.kind() {
        "generic_type" => {
            let name = node.named_child(0)?;
            let params = node.named_child(1)?;
            let mut cursor = params.walk();
            (name, params.named_children(&mut cursor).collect())
        }
        "subscript" => {
            let mut cursor = node.walk();
            let items = node
                .children_by_field_name("subscript", &mut cursor)
                .collect();
            (node.child_by_field_name("value")?, items)
        }
        _ => return None,
    };
    if path(name, src).is_none_or(|p| last_segment(&p) != "Annotated") {
        return None;
    }
    items.into_iter().skip(1).find_map(|item| {
        let item = match item.kind() {
            "type" => item.named_child(0)?,
            _ => item,
        };
        string_value(item, src).is_some().then_some(item)
    })
}

fn is_field_call(node: Node, src: &str) -> bool {
    let node = unwrap(node);
    node.kind() == "call"
        && node
            .child_by_field_name("function")
            .and_then(|f| path(f, src))
            .is_some_and(|p| last_segment(&p) == "Field")
}

/// The first `Field(...)` call inside a type annotation (`Annotated[str, Field(...)]`).
fn find_field_call<'t>(node: Node<'t>, src: &str) -> Option<Node<'t>> {
    if is_field_call(node, src) {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(|c| find_field_call(c, src))
}

/// The JSON-schema type of a Python annotation, looking through `Annotated`, `Optional` and
/// `| None`.
pub fn json_type(annotation: &str) -> Option<String> {
    let mut t = annotation.trim().trim_matches(['"', '\'']).trim();
    if let Some(inner) = t.strip_prefix("Annotated[") {
        t = top_level_split(inner.trim_end_matches(']'))[0];
    }
    for wrapper in ["Optional[", "typing.Optional["] {
        if let Some(inner) = t.strip_prefix(wrapper) {
            t = inner.trim_end_matches(']');
        }
    }
    let parts: Vec<&str> = if let Some(inner) = t.strip_prefix("Union[") {
        top_level_split(inner.trim_end_matches(']'))
    } else {
        t.split('|').map(str::trim).collect()
    };
    let non_null: Vec<&str> = parts.into_iter().filter(|p| *p != "None").collect();
    let base = non_null.first()?.trim();
    let head = base.split('[').next().unwrap_or(base);
    let head = last_segment(head);
    Some(
        match head {
            "str" | "AnyUrl" | "HttpUrl" | "date" | "datetime" | "Path" | "EmailStr" => "string",
            "int" | "PositiveInt" | "NonNegativeInt" => "integer",
            "float" | "Decimal" => "number",
            "bool" => "boolean",
            "list" | "List" | "Sequence" | "tuple" | "Tuple" | "set" | "Set" => "array",
            "dict" | "Dict" | "Mapping" => "object",
            "Literal" => "enum",
            _ => return None,
        }
        .to_string(),
    )
}

/// Splits `a, b[c, d], e` at its top-level commas.
fn top_level_split(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// The model class a registering decorator is given (`params=QueryParams`) that also types one
/// of the decorated function's parameters (`params: QueryParams`): the tool's arguments are
/// its fields, which the registry reads from the model, not the function's signature.
pub fn model_given(function: Node, keywords: &[(String, Node)], src: &str) -> Option<String> {
    let parameters = function.child_by_field_name("parameters")?;
    let mut cursor = parameters.walk();
    let annotations: Vec<&str> = parameters
        .named_children(&mut cursor)
        .filter(|p| matches!(p.kind(), "typed_parameter" | "typed_default_parameter"))
        .filter_map(|p| p.child_by_field_name("type"))
        .map(|t| text(t, src))
        .collect();
    keywords
        .iter()
        .map(|(_, v)| unwrap(*v))
        .filter(|v| v.kind() == "identifier")
        .map(|v| text(v, src))
        .find(|model| annotations.contains(model))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_give_json_types_through_annotated_optional_and_unions() {
        for (annotation, ty) in [
            ("str", Some("string")),
            ("Annotated[int, Field(description=\"n\")]", Some("integer")),
            ("Optional[float]", Some("number")),
            ("str | None", Some("string")),
            ("None | list[str]", Some("array")),
            ("Union[dict[str, Any], None]", Some("object")),
            ("Literal['a', 'b']", Some("enum")),
            ("MyModel", None),
        ] {
            assert_eq!(json_type(annotation).as_deref(), ty, "{annotation}");
        }
    }
}
