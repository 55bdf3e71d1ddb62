//! Anchoring arbitrary bytes as JS/TS source: parse, read facts, link across files.
//! The input is split into files at 0xFF bytes (never part of UTF-8); a file's first byte picks
//! its grammar, so one input can link constants and handlers across files and languages.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpevol::anchor::{self, grammar::Lang, link};

const NAMES: [&str; 3] = ["index.js", "tools.ts", "view.tsx"];

fuzz_target!(|data: &[u8]| {
    let mut files = Vec::new();
    for part in data.split(|b| *b == 0xFF).take(4) {
        let Some((&pick, bytes)) = part.split_first() else {
            continue;
        };
        let which = usize::from(pick) % Lang::ALL.len();
        let rel = format!("src{}/{}", files.len(), NAMES[which]);
        let facts = anchor::read_source(&rel, Lang::ALL[which], bytes.to_vec());
        files.push((rel, facts));
    }
    let entry = files.first().map(|(rel, _)| rel.clone());
    let tools = link::link(&files, entry.as_deref());
    for tool in &tools {
        serde_json::to_string(tool).expect("a tool serializes");
    }
});
