//! Reading parameters from zod shapes and JSON schemas.

use super::*;
use crate as anchor;
use crate::grammar::Lang;

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
    let at = |span: &mcpevol_core::inventory::Span| &src[span.bytes.0..span.bytes.1];
    assert_eq!(
        at(&site.description.as_ref().unwrap().span),
        "\"The budget\""
    );
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

#[test]
fn zod_chains_give_bounds_defaults_values_formats_and_items() {
    let schema = schema_of(
        r#"const s = {
  days: z.number().int().min(1).max(7).default(3).describe("Days ahead"),
  unit: z.enum(["celsius", "kelvin"]).optional(),
  mail: z.string().email(),
  tags: z.array(z.object({ name: z.string(), weight: z.number() })).nonempty(),
};"#,
    );
    let shape = |i: usize| &schema.params[i].shape;
    assert_eq!(
        (
            shape(0).min.as_deref(),
            shape(0).max.as_deref(),
            shape(0).default.as_deref()
        ),
        (Some("1"), Some("7"), Some("3"))
    );
    assert!(shape(0).integer);
    assert_eq!(shape(1).values, ["celsius", "kelvin"]);
    assert_eq!(shape(2).format.as_deref(), Some("email"));
    assert_eq!(shape(3).items.as_deref(), Some("object"));
    assert_eq!(shape(3).keys, ["name", "weight"]);
    assert_eq!(shape(3).min.as_deref(), Some("1"));
}

#[test]
fn json_schemas_give_the_same_facts() {
    let schema = schema_of(
        r#"const s = { type: "object", properties: {
  limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
  mode: { type: "string", enum: ["fast", "full"], description: "How " + "deep" },
  ids: { type: "array", items: { type: "string" }, maxItems: 20 },
} };"#,
    );
    let limit = &schema.params[0].shape;
    assert_eq!(
        (
            limit.min.as_deref(),
            limit.max.as_deref(),
            limit.default.as_deref()
        ),
        (Some("1"), Some("50"), Some("10"))
    );
    assert!(limit.integer);
    assert_eq!(schema.params[1].shape.values, ["fast", "full"]);
    assert_eq!(schema.params[1].description.as_deref(), Some("How deep"));
    let ids = &schema.params[2].shape;
    assert_eq!(
        (ids.items.as_deref(), ids.max.as_deref()),
        (Some("string"), Some("20"))
    );
}

#[test]
fn a_shape_behind_a_preprocess_step_is_read_as_the_schema() {
    let src = r#"const schema = z.preprocess(aliasArgs(ALIASES), z.object({
  libraryId: z.string().describe("The library"),
  tokens: z.number().optional(),
}));"#;
    let tree = anchor::parse(src, Lang::JavaScript).unwrap();
    let at = src.find("z.preprocess").unwrap();
    let mut call = tree.root_node().descendant_for_byte_range(at, at).unwrap();
    while call.kind() != "call_expression" {
        call = call.parent().unwrap();
    }
    let SchemaRef::Inline(schema) = read_schema(call, src, "a.js") else {
        panic!("not read");
    };
    let got: Vec<(&str, bool)> = (schema.params.iter())
        .map(|p| (p.name.as_str(), p.required))
        .collect();
    assert_eq!(got, [("libraryId", true), ("tokens", false)]);
}
