//! Anchoring the hand-written fixture servers: names against the live server, spans, snapshots.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use mcpevol::anchor::anchor;
use mcpevol::inventory::{Inventory, Span, Style};
use mcpevol::server::{DEFAULT_TIMEOUT, LaunchConfig};
use mcpevol::survey::{Comparison, survey_package};

fn anchored(dir: &Path) -> Inventory {
    let rel = common::relative_to_repo(dir);
    anchor(&rel).unwrap_or_else(|e| panic!("{}: {e}", rel.display()))
}

fn snippet(span: &Span, root: &Path) -> String {
    let text = std::fs::read_to_string(root.join(&span.file)).unwrap();
    text[span.bytes.0..span.bytes.1].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_anchors_exactly_the_tools_its_running_server_lists() {
    let fixtures = common::fixtures();
    let runs = fixtures.iter().map(|dir| async move {
        let config = LaunchConfig::for_package(dir).unwrap();
        (
            common::name_of(dir),
            survey_package(dir, &config, DEFAULT_TIMEOUT).await,
        )
    });
    let results = futures::future::join_all(runs).await;
    let mut failures = Vec::new();
    println!(
        "{:<20} {:>8} {:>5} {:>7} {:>9}",
        "fixture", "anchored", "live", "recall", "precision"
    );
    for (name, result) in results {
        match result {
            Ok(listing) => {
                let c = Comparison::new(
                    listing.anchored.iter().map(String::as_str),
                    listing.live.iter().map(String::as_str),
                );
                println!(
                    "{name:<20} {:>8} {:>5} {:>7.3} {:>9.3}",
                    c.anchored, c.live, c.recall, c.precision
                );
                assert!(c.live > 0, "{name} listed no tools");
                if !c.is_exact() {
                    failures.push(format!(
                        "{name}: missing {:?}, extra {:?}",
                        c.missing, c.extra
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "anchoring differs from the live servers:\n{}",
        failures.join("\n")
    );
}

/// The name literal, or a constant that holds it (`ToolName.ECHO`, `SEARCH_TOOL`), must be
/// inside the definition span: it is what a mutator edits to rename a tool.
#[test]
fn definition_spans_contain_the_tool_name_or_the_constant_that_holds_it() {
    for dir in common::fixtures() {
        let inventory = anchored(&dir);
        let sources = all_source(&dir, &inventory);
        for tool in &inventory.tools {
            let def = snippet(&tool.definition, &dir);
            let literal = ['"', '\'', '`']
                .iter()
                .any(|q| def.contains(&format!("{q}{}{q}", tool.name)))
                || def.contains(&format!("{}:", tool.name));
            let via_constant = constants_holding(&sources, &tool.name)
                .iter()
                .any(|c| def.contains(c.as_str()));
            // A builder chain with no name in it is named by its key in a tools map, where
            // its name site is.
            let keyed = tool.style == Style::Builder
                && tool.sites.name.as_ref().is_some_and(|n| {
                    snippet(n, &dir).trim_matches(['"', '\'']) == tool.name
                        && tool
                            .sites
                            .routes
                            .iter()
                            .any(|r| r.site.bytes.0 <= n.bytes.0)
                });
            assert!(
                literal || via_constant || keyed,
                "{}: definition of {} ({}:{}) holds neither its name nor a constant for it:\n{def}",
                common::name_of(&dir),
                tool.name,
                tool.definition.file,
                tool.definition.start_line
            );
        }
    }
}

/// Names declared as `X = "name"` or `X: "name"` (enum members, consts) anywhere in the package.
fn constants_holding(sources: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in sources.lines() {
        for q in ['"', '\''] {
            for sep in [" = ", ": "] {
                let needle = format!("{sep}{q}{name}{q}");
                if let Some(at) = line.find(&needle) {
                    let before = line[..at].trim_end();
                    let ident: String = before
                        .chars()
                        .rev()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    if !ident.is_empty() && ident != "name" {
                        out.push(ident);
                    }
                }
            }
        }
    }
    out
}

fn all_source(dir: &Path, inventory: &Inventory) -> String {
    let files: BTreeSet<&str> = inventory
        .tools
        .iter()
        .map(|t| t.definition.file.as_str())
        .collect();
    let mut text = String::new();
    for f in mcpevol::anchor::source_files(dir) {
        text += &std::fs::read_to_string(&f.path).unwrap();
    }
    for f in files {
        text += &std::fs::read_to_string(dir.join(f)).unwrap();
    }
    text
}

/// A handler span is the code that runs for the tool: a function (register styles), a `case`
/// clause (switch), the block of an `if` (if), in another file than the definition (cross-file),
/// and it produces a result.
#[test]
fn handler_spans_contain_the_implementation() {
    for dir in common::fixtures() {
        let inventory = anchored(&dir);
        for tool in &inventory.tools {
            let fixture = common::name_of(&dir);
            let handler = tool
                .handler
                .as_ref()
                .unwrap_or_else(|| panic!("{fixture}: {} has no handler", tool.name));
            let code = snippet(handler, &dir);
            let what = format!(
                "{fixture}: handler of {} ({}:{}):\n{code}",
                tool.name, handler.file, handler.start_line
            );
            assert!(
                code.contains("return") || code.contains("=>"),
                "produces no result: {what}"
            );
            assert_ne!(
                handler.bytes, tool.definition.bytes,
                "is the definition itself: {what}"
            );
            match tool.style {
                Style::Switch => assert!(code.starts_with("case"), "is not a case clause: {what}"),
                Style::If => assert!(code.starts_with('{'), "is not an if block: {what}"),
                Style::CrossFile => {
                    assert_ne!(handler.file, tool.definition.file, "same file: {what}")
                }
                Style::Register | Style::Other | Style::Builder => {
                    let callable = code.starts_with("async")
                        || code.starts_with('(')
                        || code.starts_with("function")
                        || code.contains("=>")
                        || code.contains("execute");
                    assert!(callable, "is not a function: {what}");
                }
            }
        }
    }
}

#[test]
fn fixtures_cover_all_four_registration_styles() {
    let mut styles = BTreeSet::new();
    for dir in common::fixtures() {
        styles.extend(anchored(&dir).tools.iter().map(|t| t.style));
    }
    for style in [Style::Register, Style::Switch, Style::If, Style::CrossFile] {
        assert!(
            styles.contains(&style),
            "no fixture anchors as {style:?}; found {styles:?}"
        );
    }
}

#[test]
fn anchor_json_of_every_fixture_matches_its_snapshot() {
    for dir in common::fixtures() {
        let inventory = anchored(&dir);
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_json_snapshot!(format!("anchor-{}", common::name_of(&dir)), inventory);
        });
    }
}

/// Tools registered through a helper or a builder chain get every site the rules edit: the
/// name literal, the description, the schema and the statement that registers them.
#[test]
fn helper_and_builder_registrations_are_anchored_with_the_sites_the_rules_edit() {
    for (fixture, style, callee) in [
        ("helper-register", Style::Register, "registerAppTool("),
        ("builder-chain", Style::Builder, "kit"),
    ] {
        let dir = common::repo().join("fixtures").join(fixture);
        let inventory = anchored(&dir);
        assert_eq!(
            inventory.tools.len(),
            3,
            "{fixture}: {:?}",
            inventory.names()
        );
        for tool in &inventory.tools {
            let what = format!("{fixture}: {}", tool.name);
            assert_eq!(tool.style, style, "{what}");
            let s = &tool.sites;
            let name = snippet(s.name.as_ref().expect("name site"), &dir);
            assert_eq!(name, format!("\"{}\"", tool.name), "{what}");
            let description = snippet(
                &s.description.as_ref().expect("description site").span,
                &dir,
            );
            assert!(description.starts_with('"'), "{what}: {description}");
            let registration = snippet(s.registration.as_ref().expect("registration"), &dir);
            assert!(registration.starts_with(callee), "{what}: {registration}");
            assert!(registration.contains(&name), "{what}: {registration}");
            let schema = s.schema.as_ref().expect("schema site");
            assert_eq!(schema.params.len(), tool.params.len(), "{what}");
            if !tool.params.is_empty() {
                assert_eq!(schema.zod.as_deref(), Some("z"), "{what}");
            }
        }
    }
}

#[test]
fn a_tool_an_old_build_also_defines_is_anchored_where_the_entry_runs_it() {
    // `dist/index.js` (an old build nothing imports) registers the same tools with
    // `server.tool(...)`; the entry `dist/main/index.js` serves them from `./tools.js`.
    let dir = common::repo().join("fixtures/stale-build");
    let inventory = anchored(&dir);
    assert_eq!(inventory.names(), ["count_words", "echo_text"]);
    for tool in &inventory.tools {
        assert_eq!(tool.definition.file, "dist/main/tools.js", "{}", tool.name);
        let handler = tool.handler.as_ref().expect("a handler");
        assert_eq!(handler.file, "dist/main/tools.js", "{}", tool.name);
    }
    let echo = inventory.tool("echo_text").unwrap();
    assert_eq!(
        echo.description.as_deref(),
        Some("Echo a text back, trimmed")
    );
}

/// Every JavaScript and TypeScript file of the fixtures, and the largest file of a real bundled
/// server, read whole and read in 2 to 7 parts (the bundle also parsed in pieces): the same
/// facts, in the same order.
#[test]
fn a_file_read_in_parts_has_the_facts_it_has_read_whole() {
    use mcpevol::anchor::{facts, grammar::Lang, parse};
    let mut files: Vec<std::path::PathBuf> = common::fixtures()
        .iter()
        .flat_map(|dir| mcpevol::anchor::source_files(dir))
        .filter(|f| f.lang != Lang::Python)
        .map(|f| f.path)
        .collect();
    let bundle = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("servers-npm/node_modules/@modelcontextprotocol/server-wiki-explorer/dist/server.js");
    assert!(bundle.is_file(), "run scripts/install-servers.sh first");
    files.push(bundle.clone());
    let mut split_files = 0;
    let mut streamed_files = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let lang = Lang::for_path(path).unwrap();
        let tree = parse(&src, lang).unwrap();
        let whole = format!("{:?}", facts::read_in_parts(&tree, &src, "f", lang, 1));
        for parts in 2..=7 {
            let cut = facts::split::ranges(tree.root_node(), parts).len();
            split_files += usize::from(parts == 2 && cut == 2);
            let read = format!("{:?}", facts::read_in_parts(&tree, &src, "f", lang, parts));
            assert!(read == whole, "{}: {parts} parts differ", path.display());
        }
        // Read piece by piece, each piece's tree dropped before the next: the same facts.
        if let Some(streamed) = facts::stream::read(&src, "f", lang, src.len() / 3 + 1) {
            streamed_files += 1;
            let read = format!("{streamed:?}");
            assert!(
                read == whole,
                "{}: read in three pieces, the facts differ",
                path.display()
            );
        }
        if *path == bundle {
            assert_eq!(facts::split::ranges(tree.root_node(), 7).len(), 7);
            assert!(
                whole.contains("candidates: [Candidate"),
                "the bundle's tools are read"
            );
            for piece_bytes in [32 * 1024, 256 * 1024, 1024 * 1024] {
                let streamed = facts::stream::read(&src, "f", lang, piece_bytes)
                    .unwrap_or_else(|| panic!("the bundle is read in pieces of {piece_bytes}"));
                let read = format!("{streamed:?}");
                assert!(
                    read == whole,
                    "read in pieces of {piece_bytes} bytes, the facts differ"
                );
            }
            // Parsed in pieces, each piece its own tree: the same facts again.
            for pieces in 2..=4 {
                let trees = mcpevol::anchor::pieces::parse(&src, lang, pieces)
                    .unwrap_or_else(|| panic!("the bundle is cut in {pieces} pieces"));
                assert_eq!(trees.len(), pieces);
                let read = format!("{:?}", facts::read_pieces(&trees, &src, "f", lang));
                assert!(read == whole, "{pieces} pieces differ");
            }
        }
    }
    assert!(split_files > 20, "only {split_files} files were cut in two");
    assert!(
        streamed_files > 10,
        "only {streamed_files} files were read in three pieces"
    );
}

/// Compiled TypeScript of a chart server: each tool's zod shape is a module's `const schema`,
/// its chains split over lines (`zod_1.z\n  .array(..)`) and some entries naming schemas shared
/// from another module. Each tool reads its own module's shape; before, no shape was read
/// (the split chain and the shared entry each failed the zod test) and the tools had none.
#[test]
fn zod_shapes_split_over_lines_with_shared_entries_are_each_read_from_their_own_module() {
    let mut files = vec![(
        "package.json".to_string(),
        r#"{ "name": "charts", "version": "1.0.0", "main": "build/index.js" }"#.to_string(),
    )];
    for (chart, param) in [("bar", "values"), ("pie", "slices")] {
        let module = format!(
            "\"use strict\";\nconst zod_1 = require(\"zod\");\nconst base_1 = require(\"./base.js\");\n\
             const utils_1 = require(\"../utils.js\");\nconst schema = {{\n    {param}: zod_1.z\n        \
             .array(zod_1.z.number())\n        .describe(\"The {param} to draw\"),\n    \
             theme: base_1.ThemeSchema,\n}};\nconst tool = {{\n    name: \"draw_{chart}\",\n    \
             description: \"Draw a {chart} chart\",\n    \
             inputSchema: (0, utils_1.zodToJsonSchema)(schema),\n}};\nexports.{chart} = {{ schema, tool }};\n"
        );
        files.push((format!("build/charts/{chart}.js"), module));
    }
    files.push((
        "build/index.js".to_string(),
        "\"use strict\";\nconst { Server } = require(\"@modelcontextprotocol/sdk/server/index.js\");\n\
         const { ListToolsRequestSchema } = require(\"@modelcontextprotocol/sdk/types.js\");\n\
         const { bar } = require(\"./charts/bar.js\");\nconst { pie } = require(\"./charts/pie.js\");\n\
         const server = new Server({ name: \"charts\", version: \"1.0.0\" }, { capabilities: { tools: {} } });\n\
         server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [bar.tool, pie.tool] }));\n"
            .to_string(),
    ));
    let dir = common::package_of(&files);
    let inventory = anchor(dir.path()).unwrap();
    let params = |tool: &str| -> Vec<(String, Option<String>)> {
        let t = inventory.tools.iter().find(|t| t.name == tool).unwrap();
        t.params
            .iter()
            .map(|p| (p.name.clone(), p.description.clone()))
            .collect()
    };
    assert_eq!(
        params("draw_bar"),
        [
            ("values".to_string(), Some("The values to draw".to_string())),
            ("theme".to_string(), None)
        ]
    );
    assert_eq!(
        params("draw_pie"),
        [
            ("slices".to_string(), Some("The slices to draw".to_string())),
            ("theme".to_string(), None)
        ]
    );
}

/// A tool registered through a helper that takes its definition, schema and handler
/// (`this.register(server, ECHO_TOOL, EchoSchema, handler)`), its handler wrapped the way
/// mcpevol wraps handlers: still registered by that call, with the wrapped function as its
/// handler. Read as no handler, its registration fell back to a list of definitions that no
/// tool list reads, and a copy added there was never served.
#[test]
fn a_helper_registration_whose_handler_mcpevol_wrapped_keeps_its_call_and_handler() {
    let dir = common::package_of(&[
        (
            "package.json".to_string(),
            r#"{ "name": "helper", "version": "1.0.0", "type": "module", "main": "dist/index.js" }"#
                .to_string(),
        ),
        (
            "dist/tools.js".to_string(),
            "export const ECHO_TOOL = {\n    name: \"echo\",\n    title: \"Echo\",\n    description: \"Answer the text\",\n    \
         annotations: { readOnlyHint: true },\n};\n\
         export const ALL_TOOLS = [\n    ECHO_TOOL,\n];\n"
                .to_string(),
        ),
        (
            "dist/index.js".to_string(),
            "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
         import { z } from \"zod\";\nimport { ECHO_TOOL } from \"./tools.js\";\n\
         const EchoSchema = { text: z.string().describe(\"The text\") };\n\
         class App {\n    register(server, meta, schema, handler) {\n        \
         server.registerTool(meta.name, { description: meta.description, inputSchema: schema }, handler);\n    }\n    \
         create() {\n        const server = new McpServer({ name: \"helper\", version: \"1.0.0\" });\n        \
         this.register(server, ECHO_TOOL, EchoSchema, ((handler) => async function (...callArgs) {\n          \
         return await handler.apply(this, callArgs);\n        })((params) => ({ content: [{ type: \"text\", text: params.text }] })));\n        \
         return server;\n    }\n}\nnew App().create();\n"
                .to_string(),
        ),
    ]);
    let root = dir.path();
    let inventory = anchor(root).unwrap();
    let echo = inventory.tools.iter().find(|t| t.name == "echo").unwrap();
    let handler = echo.handler.as_ref().expect("a handler");
    assert!(
        snippet(handler, root).starts_with("(params) =>"),
        "{handler:?}"
    );
    let registration = echo.sites.registration.as_ref().expect("a registration");
    assert_eq!(registration.file, "dist/index.js", "{registration:?}");
    assert!(
        snippet(registration, root).starts_with("this.register(server, ECHO_TOOL"),
        "{}",
        snippet(registration, root)
    );
}
