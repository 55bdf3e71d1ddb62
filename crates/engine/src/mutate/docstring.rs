//! A Python docstring written anew with other text, in the layout of the one it replaces: its
//! prefix and quotes, the indentation of its lines, and whether its text starts on the line of
//! the opening quotes and its closing quotes stand on a line of their own.

/// The layout of a docstring as written.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    /// `r`, `u` or nothing.
    prefix: String,
    /// `"""`, `'''`, `"` or `'`.
    quote: &'static str,
    /// The text starts on the line of the opening quotes.
    inline_start: bool,
    /// The closing quotes stand on a line of their own.
    closing_own_line: bool,
    /// The indentation of its lines after the first.
    indent: String,
}

/// The docstring `source` (the whole string literal, quotes included) rewritten to hold
/// `text` (cleaned, as `inspect.cleandoc` gives it); `line_indent` is the indentation of the
/// line the docstring starts on, used when the original has a single line.
pub fn rewritten(source: &str, line_indent: &str, text: &str) -> Result<String, &'static str> {
    let layout = layout(source, line_indent)?;
    let raw = layout.prefix.eq_ignore_ascii_case("r") && !text.contains('\\');
    let prefix = if layout.prefix.eq_ignore_ascii_case("r") && !raw {
        ""
    } else {
        layout.prefix.as_str()
    };
    let lines: Vec<String> = text.lines().map(|l| escape(l, layout.quote, raw)).collect();
    let multi = lines.len() > 1;
    let quote = if multi && layout.quote.len() == 1 {
        if layout.quote == "'" { "'''" } else { "\"\"\"" }
    } else {
        layout.quote
    };
    let mut body = String::new();
    if !layout.inline_start {
        body.push('\n');
        body.push_str(&layout.indent);
    }
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            body.push('\n');
            if !line.is_empty() {
                body.push_str(&layout.indent);
            }
        }
        body.push_str(line);
    }
    if layout.closing_own_line || (multi && !source.contains('\n')) {
        body.push('\n');
        body.push_str(&layout.indent);
    } else if body.ends_with(&quote[..1]) {
        // A quote right before the closing ones would close the string early.
        body.pop();
        body.push('\\');
        body.push_str(&quote[..1]);
    }
    Ok(format!("{prefix}{quote}{body}{quote}"))
}

fn layout(source: &str, line_indent: &str) -> Result<Layout, &'static str> {
    let at = source
        .find(['"', '\''])
        .ok_or("its docstring is not a string literal")?;
    let prefix = &source[..at];
    if !prefix.chars().all(|c| matches!(c, 'r' | 'R' | 'u' | 'U')) {
        return Err("its docstring has a prefix the rules do not rewrite (bytes or f-string)");
    }
    let rest = &source[at..];
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| rest.starts_with(q) && rest.len() >= 2 * q.len() && rest.ends_with(q))
        .ok_or("its docstring's quotes were not recognised")?;
    let body = &rest[quote.len()..rest.len() - quote.len()];
    let indent = body
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .min_by_key(|i| i.len())
        .unwrap_or(line_indent)
        .to_string();
    let last = body.rsplit('\n').next().unwrap_or("");
    Ok(Layout {
        prefix: prefix.to_string(),
        quote,
        inline_start: !body.starts_with('\n') && !body.starts_with("\r\n"),
        closing_own_line: body.contains('\n') && last.trim().is_empty(),
        indent,
    })
}

/// One line of text as it is written inside `quote`: backslashes doubled (unless `raw`), and
/// quotes escaped where they would end the string.
fn escape(line: &str, quote: &str, raw: bool) -> String {
    let mut out = if raw {
        line.to_string()
    } else {
        line.replace('\\', "\\\\")
    };
    if quote.len() == 3 {
        let triple = quote.to_string();
        let one = &quote[..1];
        out = out.replace(&triple, &format!("\\{one}\\{one}\\{one}"));
    } else {
        out = out.replace(quote, &format!("\\{quote}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_line_docstring_stays_one_line() {
        assert_eq!(
            rewritten(
                "\"\"\"Reverse a text.\"\"\"",
                "    ",
                "Reverse a text. It keeps case."
            )
            .unwrap(),
            "\"\"\"Reverse a text. It keeps case.\"\"\""
        );
    }

    #[test]
    fn a_multi_line_docstring_keeps_its_indentation_and_closing_line() {
        let source = "\"\"\"Get the time.\n\n    Args:\n        tz: zone\n    \"\"\"";
        let new = "Get the time.\n\nArgs:\n    tz: zone\n\nIt answers in ISO 8601.";
        assert_eq!(
            rewritten(source, "    ", new).unwrap(),
            "\"\"\"Get the time.\n\n    Args:\n        tz: zone\n\n    It answers in ISO 8601.\n    \"\"\""
        );
    }

    #[test]
    fn text_on_the_line_after_the_quotes_stays_there() {
        let source = "'''\n    Search.\n    '''";
        assert_eq!(
            rewritten(source, "    ", "Search.\nMore.").unwrap(),
            "'''\n    Search.\n    More.\n    '''"
        );
    }

    #[test]
    fn a_one_line_docstring_given_lines_closes_on_a_line_of_its_own() {
        assert_eq!(
            rewritten("\"\"\"A.\"\"\"", "        ", "A.\n\nB.").unwrap(),
            "\"\"\"A.\n\n        B.\n        \"\"\""
        );
    }

    #[test]
    fn quotes_and_backslashes_in_the_text_cannot_end_the_string() {
        let out = rewritten("\"\"\"A.\"\"\"", "", "Say \"\"\"hi\"\"\" \\ or \"x\"").unwrap();
        assert_eq!(
            out,
            "\"\"\"Say \\\"\\\"\\\"hi\\\"\\\"\\\" \\\\ or \"x\\\"\"\"\""
        );
    }

    #[test]
    fn a_raw_docstring_stays_raw_unless_the_text_has_a_backslash() {
        assert_eq!(
            rewritten("r\"\"\"A.\"\"\"", "", "B.").unwrap(),
            "r\"\"\"B.\"\"\""
        );
        assert_eq!(
            rewritten("r\"\"\"A.\"\"\"", "", "B\\n").unwrap(),
            "\"\"\"B\\\\n\"\"\""
        );
    }

    #[test]
    fn a_bytes_docstring_is_refused() {
        assert!(rewritten("b\"\"\"A.\"\"\"", "", "B.").is_err());
    }
}
