//! Reading an arbitrary model reply as SEARCH/REPLACE blocks, an operator selection and tests.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpevol::mutate::reply;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match reply::parse_blocks(&text) {
        Ok(hunks) => {
            for h in hunks {
                assert!(!h.file.is_empty() && !h.file.contains(' '), "{h:?}");
            }
        }
        Err(e) => drop(e.to_string()),
    }
    if let Err(e) = reply::parse_selection(&text) {
        drop(e.to_string());
    }
    match reply::parse_tests(&text) {
        Ok(tests) => {
            for t in tests {
                assert!(t.expect == "success" || t.expect == "error", "{t:?}");
            }
        }
        Err(e) => drop(e.to_string()),
    }
});
