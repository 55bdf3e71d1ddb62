//! Syntax colouring of JavaScript and TypeScript for report diffs: the grammars' own highlight
//! queries (tree-sitter-highlight), one HTML string per source line, tags balanced per line.

use std::sync::OnceLock;

use tree_sitter_highlight::{HighlightConfiguration, Highlighter, HtmlRenderer};

/// The captures coloured, each becoming the CSS class `hl-<first word>`.
pub const NAMES: &[&str] = &[
    "comment",
    "constant",
    "constant.builtin",
    "function",
    "function.builtin",
    "function.method",
    "keyword",
    "number",
    "operator",
    "property",
    "string",
    "string.special",
    "type",
    "type.builtin",
    "variable.builtin",
];

fn class_attributes() -> &'static [String] {
    static ATTRS: OnceLock<Vec<String>> = OnceLock::new();
    ATTRS.get_or_init(|| {
        NAMES
            .iter()
            .map(|n| format!("class=\"hl-{}\"", n.split('.').next().unwrap_or(n)))
            .collect()
    })
}

fn config(typescript: bool) -> Option<&'static HighlightConfiguration> {
    static JS: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    static TS: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    let build = |language: tree_sitter::Language, name: &str, query: String| {
        let mut c = HighlightConfiguration::new(language, name, &query, "", "").ok()?;
        c.configure(NAMES);
        Some(c)
    };
    if typescript {
        TS.get_or_init(|| {
            // The TypeScript query adds to the JavaScript one, as its grammar does.
            let query = format!(
                "{}\n{}",
                tree_sitter_typescript::HIGHLIGHTS_QUERY,
                tree_sitter_javascript::HIGHLIGHT_QUERY
            );
            build(
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
                "typescript",
                query,
            )
        })
        .as_ref()
    } else {
        JS.get_or_init(|| {
            build(
                tree_sitter_javascript::LANGUAGE.into(),
                "javascript",
                tree_sitter_javascript::HIGHLIGHT_QUERY.to_string(),
            )
        })
        .as_ref()
    }
}

/// One HTML line per source line, or None for a file that is not JS/TS or does not highlight.
pub fn lines(path: &str, source: &[u8]) -> Option<Vec<String>> {
    let ext = path.rsplit('.').next()?;
    let typescript = match ext {
        "js" | "mjs" | "cjs" | "jsx" => false,
        "ts" | "mts" | "cts" => true,
        _ => return None,
    };
    let config = config(typescript)?;
    let mut highlighter = Highlighter::new();
    let events = highlighter.highlight(config, source, None, |_| None).ok()?;
    let mut renderer = HtmlRenderer::new();
    let attrs = class_attributes();
    renderer
        .render(events, source, &|h, out: &mut Vec<u8>| {
            out.extend_from_slice(attrs[h.0].as_bytes())
        })
        .ok()?;
    Some(
        renderer
            .lines()
            .map(|l| l.trim_end_matches('\n').to_string())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn keywords_strings_and_comments_get_their_classes_line_by_line() {
        let lines = super::lines(
            "a.js",
            b"// note\nconst s = \"x<y\";\nfunction f() { return 1; }\n",
        )
        .unwrap();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains("class=\"hl-comment\""), "{}", lines[0]);
        assert!(
            lines[1].contains("class=\"hl-keyword\">const<"),
            "{}",
            lines[1]
        );
        assert!(lines[1].contains("&quot;x&lt;y&quot;"), "{}", lines[1]);
        assert!(
            lines[2].contains("class=\"hl-function\">f<"),
            "{}",
            lines[2]
        );
        let ts = super::lines("a.ts", b"interface A { b: string }\n").unwrap();
        assert!(ts[0].contains("hl-type"), "{}", ts[0]);
        assert!(super::lines("a.json", b"{}").is_none());
    }
}
