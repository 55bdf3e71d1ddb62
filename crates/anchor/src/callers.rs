//! Registrations nothing runs: a library file may carry an example of its use
//! (`function registerExampleTools(server) { server.tool("test_tool", ...) }`) that the
//! server imports the file for something else and never calls.
//!
//! A file notes each registration inside a named function it never mentions again; linking
//! then asks the other launched files whether any of them mentions that name.

use tree_sitter::Node;

use super::syntax::text;

/// The name of a named function around `node` that `src` never mentions besides its own
/// declaration, and does not export as its default (an importer names that one freely).
pub fn uncalled_around(node: Node, src: &str) -> Option<String> {
    let mut at = node.parent();
    while let Some(n) = at {
        at = n.parent();
        let name = match n.kind() {
            "function_declaration" | "generator_function_declaration" => {
                n.child_by_field_name("name")
            }
            "arrow_function" | "function_expression" | "function" => n
                .parent()
                .filter(|p| p.kind() == "variable_declarator")
                .and_then(|p| p.child_by_field_name("name")),
            _ => None,
        };
        let Some(name) = name.filter(|n| n.kind() == "identifier") else {
            continue;
        };
        let default_export = n.parent().is_some_and(|p| {
            p.kind() == "export_statement" && text(p, src).starts_with("export default")
        });
        let word = text(name, src);
        if !default_export && mentions(src, word, 2) < 2 {
            return Some(word.to_string());
        }
    }
    None
}

/// How many times `word` occurs in `text` as a whole identifier, counting up to `limit`.
pub fn mentions(text: &str, word: &str, limit: usize) -> usize {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut found = 0;
    for (at, _) in text.match_indices(word) {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            found += 1;
            if found >= limit {
                break;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn around(src: &str, marker: &str) -> Option<String> {
        let tree = crate::parse(src, crate::grammar::Lang::JavaScript).unwrap();
        let at = src.find(marker).unwrap();
        let node = tree
            .root_node()
            .descendant_for_byte_range(at, at + marker.len())
            .unwrap();
        uncalled_around(node, src)
    }

    #[test]
    fn a_registration_in_a_function_the_file_never_calls_names_that_function() {
        let src = "export function registerExamples(s) { s.tool('test_tool', cb); }\nexport const reply = 1;\n";
        assert_eq!(
            around(src, "test_tool").as_deref(),
            Some("registerExamples")
        );
        let called = "function setup(s) { s.tool('real', cb); }\nsetup(server);\n";
        assert_eq!(around(called, "real"), None);
        let arrow = "const setup = (s) => { s.tool('real', cb); };\n";
        assert_eq!(around(arrow, "real").as_deref(), Some("setup"));
        let default = "export default function setup(s) { s.tool('real', cb); }\n";
        assert_eq!(around(default, "real"), None);
        let top = "server.tool('real', cb);\n";
        assert_eq!(around(top, "real"), None);
    }

    #[test]
    fn mentions_count_whole_identifiers_only() {
        assert_eq!(
            mentions("setup(); setupAll(); $setup; setup", "setup", 9),
            2
        );
        assert_eq!(mentions("a a a a", "a", 2), 2);
    }
}
