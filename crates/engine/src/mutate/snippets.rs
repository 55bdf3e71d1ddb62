//! The source a model sees of its target tools: the anchored definition and handler of each,
//! from every file involved, exactly as the files hold them (so that SEARCH text can match).

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use super::dialect::dialect_of;
use mcpevol_core::inventory::{Span, Tool};

/// Lines around a span, so that an edit has context to anchor its SEARCH text.
const CONTEXT_LINES: usize = 2;
/// A very long line (a minified bundle) is cut around the span instead.
const LONG_LINE: usize = 400;

/// The snippets of `targets`, each region once, in file and line order, with headers.
pub fn snippets(root: &Path, tools: &[&Tool]) -> String {
    let mut regions: BTreeSet<(String, usize, usize, usize, usize)> = BTreeSet::new();
    for tool in tools {
        let mut spans: Vec<&Span> = vec![&tool.definition];
        spans.extend(tool.handler.as_ref());
        spans.extend(tool.sites.routes.iter().map(|d| &d.site));
        spans.extend(tool.sites.registration.as_ref());
        spans.extend(tool.sites.schema.as_ref().map(|s| &s.object));
        spans.extend(tool.sites.declaration.as_ref());
        for s in spans {
            regions.insert((
                s.file.clone(),
                s.start_line,
                s.end_line,
                s.bytes.0,
                s.bytes.1,
            ));
        }
    }
    let mut out = String::new();
    let merged = merge(regions);
    if let Some(note) = merged.iter().find_map(|r| dialect_of(&r.0).snippet_note()) {
        out.push_str(note);
        out.push_str("\n\n");
    }
    for (file, start, end, b0, b1) in merged {
        let Ok(text) = std::fs::read_to_string(root.join(&file)) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let from = start.saturating_sub(CONTEXT_LINES + 1);
        let to = (end + CONTEXT_LINES).min(lines.len());
        let language = dialect_of(&file).snippet_label();
        let _ = writeln!(out, "--- {file} (lines {}-{}{language})", from + 1, to);
        if lines[from..to].iter().any(|l| l.len() > LONG_LINE) {
            let a = text.floor_char_boundary(b0.saturating_sub(LONG_LINE));
            let b = text.ceil_char_boundary((b1 + LONG_LINE).min(text.len()));
            let _ = writeln!(out, "{}", &text[a..b]);
        } else {
            for line in &lines[from..to] {
                let _ = writeln!(out, "{line}");
            }
        }
        out.push('\n');
    }
    out
}

/// Overlapping or adjacent regions of one file become one.
fn merge(
    regions: BTreeSet<(String, usize, usize, usize, usize)>,
) -> Vec<(String, usize, usize, usize, usize)> {
    let mut out: Vec<(String, usize, usize, usize, usize)> = Vec::new();
    for r in regions {
        match out.last_mut() {
            Some(last) if last.0 == r.0 && r.1 <= last.2 + 2 * CONTEXT_LINES + 1 => {
                last.2 = last.2.max(r.2);
                last.3 = last.3.min(r.3);
                last.4 = last.4.max(r.4);
            }
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::python::PYTHON_NOTE;
    use super::*;

    #[test]
    fn snippets_show_definition_and_handler_of_a_switch_tool_with_context() {
        let root =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures/switch-esm");
        let inventory = mcpevol_anchor::anchor(&root).unwrap();
        let tool = inventory.tool("get_forecast").unwrap();
        let text = snippets(&root, &[tool]);
        assert!(text.contains("--- server.js (lines"), "{text}");
        assert!(text.contains("name: \"get_forecast\""), "{text}");
        assert!(text.contains("case \"get_forecast\""), "{text}");
        assert!(
            !text.contains("case \"list_cities\":\n      return"),
            "only the target's code: {text}"
        );
        assert!(!text.contains("Python"), "{text}");
    }

    #[test]
    fn a_python_servers_snippets_say_they_are_python() {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("fixtures/python/lowlevel-match");
        let inventory = mcpevol_anchor::anchor(&root).unwrap();
        let text = snippets(&root, &[inventory.tool("echo").unwrap()]);
        assert!(text.starts_with(PYTHON_NOTE), "{text}");
        assert!(
            text.contains("--- server.py (lines") && text.contains(", Python)"),
            "{text}"
        );
        assert!(text.contains("case Tools.ECHO.value:"), "{text}");
    }
}
