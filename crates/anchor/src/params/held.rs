//! What a zod shape takes from other declarations, for the linker to resolve: shapes it
//! spreads, and entries that name a parameter schema held in a constant (compiled TypeScript
//! keeps both in constants of their own module).

use tree_sitter::Node;

use super::{Schema, zod_param};
use crate::syntax::{path, unwrap};
use mcpevol_core::inventory::{Param, SchemaSite};

/// The names a zod shape is built from, resolved when files are linked: compiled TypeScript
/// keeps shapes and parameter schemas in constants of their own module.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Links {
    /// Shapes spread into this one (`{ ...BaseArgs, body }`), in order: their parameters are
    /// the tool's too, though edited where they are declared, not here.
    pub spreads: Vec<String>,
    /// Entries whose value is a schema held in a constant (`query: SearchQuery`), with its
    /// name: the parameter's type and optionality are read there.
    pub named: Vec<(String, String)>,
}

impl Links {
    /// The spreads and named entries of a zod shape `object` with `entries`.
    pub(super) fn of_shape(object: Node, entries: &[(String, Node, Node)], src: &str) -> Links {
        let mut links = Links::default();
        let mut cursor = object.walk();
        for spread in object.named_children(&mut cursor) {
            if spread.kind() == "spread_element"
                && let Some(path) = spread.named_child(0).and_then(|e| path(unwrap(e), src))
            {
                links.spreads.push(path);
            }
        }
        for (name, value, _) in entries {
            let named = unwrap(*value);
            if matches!(named.kind(), "identifier" | "member_expression")
                && let Some(path) = path(named, src)
            {
                links.named.push((name.clone(), path));
            }
        }
        links
    }
}

impl Schema {
    pub fn new(params: Vec<Param>, site: SchemaSite) -> Schema {
        Schema {
            params,
            site,
            links: Links::default(),
        }
    }
}

/// A parameter's schema held in a constant (`const SearchQuery = z.string().min(1)`): what a
/// shape entry that names it takes, and how its file spells zod. None for a chain that is not
/// zod's.
pub fn read_param_chain(
    value: Node,
    src: &str,
    rel: &str,
    zod_aliases: &[String],
) -> Option<(Param, String)> {
    let value = unwrap(value);
    if value.kind() != "call_expression" {
        return None;
    }
    let (param, _, zod) = zod_param(String::new(), value, value, src, rel);
    let zod = zod?;
    (param.ty.is_some() && crate::zod::is_receiver(&zod, zod_aliases)).then_some((param, zod))
}
