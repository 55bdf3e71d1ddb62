//! How a file spells zod: `z` and `zod_1.z` always, and the names a bundle imports it under
//! (`import { z as s } from "zod"`, `import * as s from "zod"`), which a minified bundle
//! gives as one or two letters. A shape is told from any other object by its zod chains.

use std::sync::LazyLock;

use regex::Regex;

/// Imports sit at the top of a module, and of a bundle whose externals are hoisted there.
const HEAD_BYTES: usize = 64 * 1024;

static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"import\s+([^;]*?)\s*from\s*["']zod(?:/v[34])?["']"#).expect("compiles")
});
static NAMED_Z: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bz\s+as\s+([A-Za-z_$][\w$]*)").expect("compiles"));
static NAMESPACE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\*\s*as\s+([A-Za-z_$][\w$]*)").expect("compiles"));
static DEFAULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_$][\w$]*)\s*(?:,|$)").expect("compiles"));

/// The names other than `z` that `src` imports zod under.
pub fn aliases(src: &str) -> Vec<String> {
    let mut end = src.len().min(HEAD_BYTES);
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = Vec::new();
    for import in IMPORT.captures_iter(&src[..end]) {
        let clause = import[1].trim();
        for re in [&*NAMED_Z, &*NAMESPACE, &*DEFAULT] {
            out.extend(re.captures_iter(clause).map(|c| c[1].to_string()));
        }
    }
    out.retain(|a| a != "z");
    out.dedup();
    out
}

/// Whether `chain` (whitespace removed) is called on zod as this file spells it.
pub fn is_chain(chain: &str, aliases: &[String]) -> bool {
    chain.contains("z.") || (aliases.iter()).any(|a| chain.starts_with(&format!("{a}.")))
}

/// Whether `receiver`, the innermost receiver of a chain, is zod as this file spells it.
pub fn is_receiver(receiver: &str, aliases: &[String]) -> bool {
    receiver == "z" || receiver.ends_with(".z") || aliases.iter().any(|a| a == receiver)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_a_bundle_imports_zod_under_are_found() {
        let src = "import Q, { ZodError as ls, z as s } from \"zod\";\n\
                   import * as zz from 'zod/v4';\nimport { z } from \"zod\";\n\
                   import { x as y } from \"other\";\n";
        assert_eq!(aliases(src), ["s", "Q", "zz"]);
        assert!(is_chain("s.string().optional()", &aliases(src)));
        assert!(!is_chain("ls.string()", &aliases(src)));
        assert!(is_receiver("zod_1.z", &[]) && !is_receiver("y", &aliases(src)));
    }
}
