//! What the running server shows of the anchored tools: which are served at all (a round aimed
//! at one it does not list changes nothing a client sees), whose parameter descriptions it hides,
//! and, when nothing is left to change, why (with the switches that look like they turn tools on).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use mcpevol_core::inventory::Inventory;
use mcpevol_core::listed::ListedTool;
use mcpevol_oracle::server::LiveTools;

/// Marks tools whose live schema leaves out parameter descriptions that their source gives.
/// A server whose listed parameters never carry a description also hides the ones written.
pub fn mark_opaque_params(inventory: &mut mcpevol_core::inventory::Inventory, live: &LiveTools) {
    let props = |t: &ListedTool| t.properties().cloned().unwrap_or_default();
    let any_param = live.tools.iter().any(|t| !props(t).is_empty());
    let any_described = live
        .tools
        .iter()
        .any(|t| props(t).values().any(|p| p.get("description").is_some()));
    let hides_all = any_param && !any_described;
    for tool in &mut inventory.tools {
        let Some(listed) = live.tools.iter().find(|t| t.is_named(&tool.name)) else {
            continue;
        };
        let props = &listed.input_schema()["properties"];
        if let Some(schema) = &mut tool.sites.schema {
            for site in &mut schema.params {
                site.live_described = props[&site.name].get("description").is_some();
            }
        }
        // A parameter the listing lacks altogether, beside others it shows, is one the work
        // tree added since (a release's new parameter): it says nothing of what the server
        // shows. Counted as hidden, it kept every parameter description off a tool given a
        // new parameter in the same release, and P12 was never made.
        let listed_any = tool.params.iter().any(|p| props.get(&p.name).is_some());
        tool.sites.opaque_params = hides_all
            || tool.params.iter().any(|p| {
                p.description.is_some()
                    && props
                        .get(&p.name)
                        .map_or(!listed_any, |v| v.get("description").is_none())
            });
    }
}

/// Switches named in a few words are enough to point a user at the right one.
const SWITCHES_NAMED: usize = 6;
/// Words in a switch's name that say it turns tools or features on.
const SWITCH_WORDS: &[&str] = &[
    "TOOL",
    "ENABLE",
    "ALLOW",
    "FEATURE",
    "GROUP",
    "EXPERIMENT",
    "MODE",
    "CAPAB",
    "ONLY",
    "READ",
    "WRITE",
];

static ENV_VAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"process\.env(?:\.([A-Z][A-Z0-9_]{2,})|\[\s*["']([A-Z][A-Z0-9_]{2,})["']\s*\])"#)
        .expect("the pattern compiles")
});
static FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"["'](--[a-z][a-z0-9-]{2,})(?:=[^"']*)?["']"#).expect("compiles")
});

/// Drops the anchored tools the running server does not list (a round aimed at them could
/// change nothing a client sees) and returns their names.
pub fn keep_served(inventory: &mut Inventory, live: &LiveTools) -> Vec<String> {
    let served: BTreeSet<&str> = live.names().into_iter().collect();
    let (kept, dropped): (Vec<_>, Vec<_>) = std::mem::take(&mut inventory.tools)
        .into_iter()
        .partition(|t| served.contains(t.name.as_str()));
    inventory.tools = kept;
    dropped.into_iter().map(|t| t.name).collect()
}

/// The reason a round could not even propose a change, in words that say what to do.
pub fn why_nothing_applies(root: &Path, unserved: &[String]) -> String {
    if let Some(file) = obfuscated(root).filter(|_| unserved.is_empty()) {
        return format!(
            "no operator applies: the package's sources are obfuscated ({file} names its values through a decoder, as in `_0x1f2e3d(0x1a)`), so no tool name or description is written out to anchor or edit"
        );
    }
    let anchored_none = "anchoring found no tool definitions in the package's own sources, so no operator applies (see `mcpevol anchor`)";
    if unserved.is_empty() {
        return format!(
            "no operator applies to any tool this server lists; {anchored_none} or every operator was ruled out (see `inapplicable` in round.json)"
        );
    }
    let switches = switches(root);
    let hint = if switches.is_empty() {
        String::new()
    } else {
        format!(
            "; launch settings that may turn them on (give them with `mcpevol init --arg/--env`): {}",
            switches.join(", ")
        )
    };
    format!(
        "no operator applies to a served tool: anchored tools {} are not listed by the running server{hint}",
        unserved.join(", ")
    )
}

/// Identifiers an obfuscator writes (`_0x3eeca5`) in one file beyond which its text is read as
/// obfuscated: hand-written or minified code has none.
const OBFUSCATED_NAMES: usize = 200;

static OBFUSCATOR_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b_0x[0-9a-f]{4,}\b").expect("the pattern compiles"));

/// The first source file of the package that an obfuscator wrote, if any.
fn obfuscated(root: &Path) -> Option<String> {
    mcpevol_anchor::files::discover(root)
        .0
        .into_iter()
        .find_map(|file| {
            let text = std::fs::read_to_string(&file.path).ok()?;
            (OBFUSCATOR_NAME
                .find_iter(&text)
                .nth(OBFUSCATED_NAMES)
                .is_some())
            .then(|| {
                file.path
                    .strip_prefix(root)
                    .unwrap_or(&file.path)
                    .display()
                    .to_string()
            })
        })
}

/// Environment variables and command-line flags the package's sources read whose names look
/// like tool switches, most telling first.
pub fn switches(root: &Path) -> Vec<String> {
    let mut found: BTreeSet<(usize, String)> = BTreeSet::new();
    for file in mcpevol_anchor::files::discover(root).0 {
        let Ok(text) = std::fs::read_to_string(&file.path) else {
            continue;
        };
        for c in ENV_VAR.captures_iter(&text) {
            if let Some(name) = c.get(1).or_else(|| c.get(2)) {
                found.insert((rank(name.as_str()), name.as_str().to_string()));
            }
        }
        for c in FLAG.captures_iter(&text) {
            found.insert((rank(&c[1].to_ascii_uppercase()), c[1].to_string()));
        }
    }
    found
        .into_iter()
        .filter(|(rank, _)| *rank < SWITCH_WORDS.len())
        .take(SWITCHES_NAMED)
        .map(|(_, name)| name)
        .collect()
}

/// The index of the first switch word in `name`, or past the end when it has none.
fn rank(name: &str) -> usize {
    SWITCH_WORDS
        .iter()
        .position(|w| name.contains(w))
        .unwrap_or(SWITCH_WORDS.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A package whose `index.js` is `source`.
    fn package(source: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"name":"x","main":"index.js"}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("index.js"), source).unwrap();
        dir
    }

    /// The one tool of a server whose source describes `a` and `b`, marked against a listing
    /// of `listed` (its `inputSchema.properties`).
    fn opaque_against(listed: serde_json::Value) -> bool {
        let dir = package(
            r#"server.tool("t", "Does t", { a: z.string().describe("An a"), b: z.number().describe("A b") }, async ({ a }) => ({ content: [] }));"#,
        );
        let mut inventory = mcpevol_anchor::anchor(dir.path()).unwrap();
        assert_eq!(inventory.tools.len(), 1);
        let live = LiveTools {
            server: serde_json::Value::Null,
            tools: vec![
                serde_json::json!({"name": "t", "inputSchema": {"properties": listed}}).into(),
            ],
        };
        mark_opaque_params(&mut inventory, &live);
        inventory.tools[0].sites.opaque_params
    }

    #[test]
    fn a_parameter_the_listing_lacks_beside_described_ones_is_new_not_hidden() {
        let described = serde_json::json!({"description": "An a", "type": "string"});
        assert!(!opaque_against(
            serde_json::json!({ "a": described.clone() })
        ));
        assert!(!opaque_against(
            serde_json::json!({ "a": described, "b": {"description": "A b"} })
        ));
        // Listed without its description: hidden.
        assert!(opaque_against(
            serde_json::json!({ "a": {"type": "string"} })
        ));
        // None of its parameters listed: hidden too.
        assert!(opaque_against(serde_json::json!({})));
    }

    #[test]
    fn a_package_of_obfuscated_sources_is_said_to_be_so_when_nothing_anchors() {
        let names: String = (0..300)
            .map(|i| format!("const _0x{:06x}=_0x4402a7(0x{i:x});", 0x1000 + i))
            .collect();
        let dir = package(&names);
        let why = why_nothing_applies(dir.path(), &[]);
        assert!(why.contains("obfuscated (index.js"), "{why}");
        let plain = package("const server = makeServer();");
        let why = why_nothing_applies(plain.path(), &[]);
        assert!(why.contains("found no tool definitions"), "{why}");
    }

    #[test]
    fn switches_are_read_from_env_lookups_and_flag_literals_and_ranked() {
        let dir = package(
            r#"const a = process.env.ENABLE_ADMIN_TOOLS; const h = process.env["HOME_DIR"];
               if (argv.includes("--toolsets")) {} const p = process.env.API_TOKEN;"#,
        );
        assert_eq!(
            switches(dir.path()),
            vec!["--toolsets", "ENABLE_ADMIN_TOOLS"]
        );
        let why = why_nothing_applies(dir.path(), &["admin_reset".to_string()]);
        assert!(
            why.contains("admin_reset") && why.contains("ENABLE_ADMIN_TOOLS"),
            "{why}"
        );
    }
}
