//! The fuzz targets of `fuzz/` as property tests that run with every `cargo test`: a few dozen
//! generated cases each, so that CI keeps guarding what the long fuzz runs (fuzz/run.sh, see
//! RELIABILITY.md) found. No input may panic; where there is an oracle, it is checked.

use std::collections::BTreeMap;

use mcpevol::anchor::{self, grammar::Lang, link};
use mcpevol::drift::calls;
use mcpevol::hunks::{self, Hunk};
use mcpevol::mutate::reply;
use mcpevol::server::LaunchConfig;
use mcpevol::validate::{MAX_ARGUMENT_BYTES, MAX_SCHEMA_DEPTH, arguments_for};
use mcpevol::{operators, prompt};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Pieces of MCP server sources, including the ones that broke anchoring: quotes left open
/// before multi-byte characters and line ends.
const SOURCE_PIECES: &[&str] = &[
    "server.tool(",
    "server.registerTool(",
    "setRequestHandler(CallToolRequestSchema, ",
    "{ name: ",
    "inputSchema: { type: \"object\", properties: { a: { type: \"string\" } } }",
    "z.object({ a: z.string().describe(\"d\") })",
    "switch (request.params.name) {",
    "case ",
    "if (name === ",
    "const ToolName = { ECHO: ",
    "enum T { A = ",
    "async () => ({})",
    "}",
    ")",
    ", ",
    ";",
    "\n",
    "\"",
    "'",
    "`",
    "${",
    "é",
    "€",
    "😀",
    "\"echo\"",
    "'é",
    "\"ech€\n",
];

/// Pieces of call files and agent session logs: JSON-RPC messages, wrappers, log prefixes,
/// arrays, and the fragments that break them.
const CALL_FILE_PIECES: &[&str] = &[
    "{\"name\": \"a\", \"arguments\": {\"x\": 1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}",
    "{\"direction\":\"send\",\"message\":",
    "{\"request\":\"{\\\"method\\\":\\\"tools/call\\\"}\"}",
    "2025-01-01T10:00:00Z [s] [info] Message from client: ",
    "[info] ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\"",
    "tools/call",
    "é",
    "\n",
    "\n\n",
    "null",
];

/// Lines of a model reply: block markers, fences, paths and JSON fragments.
const REPLY_PIECES: &[&str] = &[
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "```",
    "```json",
    "src/index.js",
    "`a.js`:",
    "**b.ts**",
    "x();",
    "",
    "{\"operator\": \"O5\", \"targets\": [\"é\"]}",
    "[{\"tool\": \"t\", \"expect\": \"success\"}]",
    "[{\"tool\": 1}]",
    "{",
    "[",
    "é€😀",
];

/// Definitions the anchoring reads, with string literals that may be left open (`"é` then a
/// line end), then random pieces: what a half-written or damaged server file looks like.
fn source() -> impl Strategy<Value = String> {
    let literal = (
        "[\"'`]",
        "[a-z_é€😀]{0,5}",
        prop_oneof![Just(""), Just("\n"), Just("close")],
    )
        .prop_map(|(quote, name, end)| match end {
            "close" => format!("{quote}{name}{quote}"),
            end => format!("{quote}{name}{end}"),
        });
    let template = proptest::sample::select(
        &[
            "server.tool(NAME, DESC, async () => ({}));",
            "server.registerTool(NAME, { description: DESC, inputSchema: {} }, async () => ({}));",
            "const ToolName = { ECHO: NAME };\nconst tools = [{ name: ToolName.ECHO, inputSchema: {} }];",
            "switch (request.params.name) { case NAME: return DESC; }",
        ][..],
    );
    (
        template,
        literal.clone(),
        literal,
        pieces(SOURCE_PIECES, 12),
    )
        .prop_map(|(template, name, desc, tail)| {
            template.replace("NAME", &name).replace("DESC", &desc) + &tail.concat()
        })
}

fn pieces(from: &'static [&'static str], max: usize) -> impl Strategy<Value = Vec<String>> {
    let piece = prop_oneof![
        3 => proptest::sample::select(from).prop_map(str::to_string),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..max)
}

/// JSON schemas with hostile counts and nesting, as a server might send them.
fn schema() -> impl Strategy<Value = Value> {
    let count = prop_oneof![
        Just(json!(0)),
        Just(json!(3)),
        Just(json!(1_000_000_000u64)),
        Just(json!(1e9)),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        Just(json!("many")),
    ];
    let leaf = prop_oneof![
        (count.clone(), any::<bool>()).prop_map(|(n, url)| {
            json!({"type": "string", "minLength": n, "format": if url { "uri" } else { "" }})
        }),
        Just(json!({"type": "integer", "minimum": 1e300})),
        Just(json!({"default": "d".repeat(10_000)})),
        Just(json!({"enum": []})),
        Just(json!(null)),
        Just(json!({"type": ["null", "boolean"]})),
    ];
    leaf.prop_recursive(8, 64, 4, move |inner| {
        prop_oneof![
            (inner.clone(), count.clone())
                .prop_map(|(items, n)| json!({"type": "array", "items": items, "minItems": n})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|props| {
                let names: Vec<String> = (0..props.len()).map(|i| format!("p{i}")).collect();
                let properties: serde_json::Map<String, Value> =
                    names.iter().cloned().zip(props).collect();
                json!({"type": "object", "properties": properties, "required": names})
            }),
            prop::collection::vec(inner, 1..3).prop_map(|alts| json!({"anyOf": alts})),
        ]
    })
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A text of a few short lines, most alike: where a SEARCH text is easily not unique.
fn repeated_lines() -> impl Strategy<Value = String> {
    let line = proptest::sample::select(&["", "a", "a", "é", " a"][..]);
    prop::collection::vec(line, 1..12).prop_map(|lines| lines.join("\n"))
}

/// `i` moved down to a character boundary of `text`.
fn floor(text: &str, i: usize) -> usize {
    (0..=i.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn anchoring_any_source_text_never_panics(src in prop_oneof![source(), pieces(SOURCE_PIECES, 40).prop_map(|p| p.concat())], which in 0usize..3) {
        let rel = "index.js";
        let facts = anchor::read_source(rel, Lang::ALL[which], src.into_bytes());
        let tools = link::link(&[(rel.to_string(), facts)], Some(rel), &Default::default());
        for tool in &tools {
            prop_assert!(serde_json::to_string(tool).is_ok());
        }
    }

    #[test]
    fn reading_any_reply_never_panics(lines in pieces(REPLY_PIECES, 30)) {
        let text = lines.join("\n");
        if let Ok(hunks) = reply::parse_blocks(&text) {
            prop_assert!(hunks.iter().all(|h| !h.file.is_empty() && !h.file.contains(' ')));
        }
        let _ = reply::parse_selection(&text).map_err(|e| e.to_string());
        // `expect` is a type now (success or error): what parses is one of the two.
        let _ = reply::parse_tests(&text).map_err(|e| e.to_string());
    }

    #[test]
    fn blocks_written_by_a_model_are_read_back_as_written(
        blocks in prop::collection::vec(("[a-z]{1,8}/[a-z]{1,8}\\.js", "[a-z(); ]{1,20}", "[a-zé(); ]{0,20}"), 1..4)
    ) {
        let mut text = String::from("Here are the edits.\n");
        for (file, search, replace) in &blocks {
            text += &format!("{file}\n```js\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n");
        }
        let hunks = reply::parse_blocks(&text).unwrap();
        let expected: Vec<Hunk> = blocks
            .iter()
            .map(|(file, search, replace)| Hunk {
                file: file.clone(),
                search: format!("{search}\n"),
                replace: format!("{replace}\n"),
            })
            .collect();
        prop_assert_eq!(hunks, expected);
    }

    #[test]
    fn a_hunk_made_for_a_byte_range_changes_exactly_that_range(
        text in repeated_lines(), x in 0usize..48, y in 0usize..48, new in "[b\n]{0,4}"
    ) {
        let (start, end) = (floor(&text, x.min(y)), floor(&text, x.max(y)));
        let hunk = hunks::hunk_for("a.js", &text, start, end, &new);
        // An empty SEARCH text creates a file: it comes only from an empty one, with nothing in it to anchor.
        prop_assume!(!hunk.search.is_empty());
        let (dir, scope) = tracked(&text);
        let texts = hunks::apply_in_memory(dir.path(), &scope, &[hunk]).unwrap();
        prop_assert_eq!(&texts["a.js"], &format!("{}{new}{}", &text[..start], &text[end..]));
    }

    #[test]
    fn applying_any_hunks_never_panics(
        text in "[a\n é]{0,40}",
        hunks in prop::collection::vec(("a\\.js|new\\.js|\\.\\./x|/etc/x|", "[a\n é]{0,8}", "[b\n]{0,4}"), 0..4)
    ) {
        let (dir, scope) = tracked(&text);
        let hunks: Vec<Hunk> = hunks
            .into_iter()
            .map(|(file, search, replace)| Hunk { file, search, replace })
            .collect();
        if let Err(e) = hunks::apply_in_memory(dir.path(), &scope, &hunks) {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn reading_any_operator_file_or_launch_settings_never_panics(
        cut in 0usize..4000, insert in pieces(&["---", "+++", "[contract]", "id = ", "\"", "{{", "}}", "## Prompt", "é", "\n"], 6),
        toml in pieces(&["command = ", "args = [", "]", "[env]", "A = ", "\"", "{tmp}", "é", "\n", "=", "[[x]]"], 12)
    ) {
        let (file, original) = ("operators/O05-flexible-expansion.md", include_str!("../../operators/O05-flexible-expansion.md"));
        let at = floor(original, cut);
        let text = format!("{}{}{}", &original[..at], insert.concat(), &original[at..]);
        if let Ok(op) = operators::parse(&text, file) {
            let values: BTreeMap<&str, String> = BTreeMap::new();
            let _ = op.mutation_prompt(&values);
        }
        for kind in prompt::PromptKind::SHARED {
            let _ = prompt::check_template(kind, &text, 1);
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".mcpevol")).unwrap();
        std::fs::write(dir.path().join(".mcpevol/server.toml"), toml.concat()).unwrap();
        if let Err(e) = LaunchConfig::for_package(dir.path()) {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn reading_any_call_file_or_session_log_never_panics_and_names_a_line_of_it(
        pieces in pieces(CALL_FILE_PIECES, 30)
    ) {
        let text = pieces.concat();
        match calls::parse(&text) {
            Ok(found) => prop_assert!(found.iter().all(|(name, _)| text.contains(name.as_str()))),
            Err(bad) => {
                prop_assert!(bad.line >= 1 && bad.line <= text.lines().count().max(1), "{:?}", bad);
                prop_assert!(!bad.why.is_empty());
            }
        }
    }

}

proptest! {
    // Fewer cases: most fill the whole budget, which takes a while in a debug build.
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arguments_for_any_schema_stay_within_the_budget_and_depth(schema in schema()) {
        let wrapped = json!({"type": "object", "properties": {"x": schema}, "required": ["x"]});
        let args = Value::Object(arguments_for(&wrapped));
        let size = serde_json::to_vec(&args).unwrap().len();
        prop_assert!(size <= MAX_ARGUMENT_BYTES + 64, "{} bytes", size);
        prop_assert!(depth(&args) <= MAX_SCHEMA_DEPTH + 1, "depth {}", depth(&args));
    }
}

/// A folder whose `a.js` (holding `text`) is tracked by git, and the scope edits may touch in it.
fn tracked(text: &str) -> (tempfile::TempDir, mcpevol::confine::Scope) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.js"), text).unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(std::path::Path::new("a.js")).unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let who = git2::Signature::now("test", "test@localhost").unwrap();
    repo.commit(Some("HEAD"), &who, &who, "a", &tree, &[])
        .unwrap();
    let scope = mcpevol::confine::Scope::of_workspace(dir.path()).unwrap();
    (dir, scope)
}
