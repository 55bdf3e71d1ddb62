//! Reading an arbitrary operator file (TOML front matter and Markdown sections), checking it as
//! each shared prompt, and filling the mutation prompt of one that reads.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use mcpevol::{operators, prompt};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match operators::parse(&text, "operators/U1-fuzz.md") {
        Ok(op) => {
            let names: Vec<String> = prompt::placeholders(&op.prompt)
                .into_iter()
                .map(|(name, _)| name)
                .collect();
            let values: BTreeMap<&str, String> = names
                .iter()
                .map(|name| (name.as_str(), "value".to_string()))
                .collect();
            let _ = op.mutation_prompt(&values);
        }
        Err(e) => drop(e.to_string()),
    }
    for kind in prompt::PromptKind::SHARED {
        let _ = prompt::check_template(kind, &text, 1);
    }
    let _ = prompt::clean(&text, &prompt::blank_comments(&text));
    let _ = prompt::sections(&text);
});
