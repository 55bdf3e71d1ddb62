//! A display title for a tool (`title: "Get Weather"`), written as an entry beside its
//! description in the object that defines or configures it (a JSON definition, a
//! `registerTool` config): the name clients show in place of the tool's. A change of `other`
//! kind, as the real releases were counted; it says nothing of what the tool does, so the
//! oracle holds the tool to answering as before.

use std::sync::LazyLock;

use regex::Regex;

use super::dialect::dialect_of;
use super::splice::{contains, indent_at, js_string};
use super::words;
use mcpevol_core::inventory::{DescriptionSite, Span, Tool};

/// The title a tool's name reads as: its words, each capitalised (`get_weather`, `getWeather`
/// and `get-weather` all read "Get Weather").
pub fn title_for(name: &str) -> String {
    words::words(name)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The description site a title is written beside: a JavaScript tool's, as the code writes it.
pub fn titleable(tool: &Tool) -> Result<&DescriptionSite, &'static str> {
    let site = (tool.sites.description.as_ref()).ok_or("its description is not written out")?;
    if !dialect_of(&site.span.file).writes_titles() {
        return Err("a Python tool's title is not written beside its description");
    }
    if words::words(&tool.name).is_empty() {
        return Err("its name has no words to title it by");
    }
    // A title reaches clients where the object it is written in is handed over whole: the
    // registration's own config, or a definition a low-level server lists. A definition whose
    // fields a registration reads one by one (`server.tool(T.name, T.description, ...)`)
    // would hold a title nobody serves.
    let registered = (tool.sites.registration.as_ref()).is_some_and(|r| contains(r, &site.span));
    if !registered && tool.sites.routes.is_empty() {
        return Err(
            "its registration reads its definition's fields one by one, so a title there is not served",
        );
    }
    Ok(site)
}

/// What to insert, and where, to give the object around `description` (in `text`) the entry
/// `title: "<title>"` before its description entry, in the object's quoting and layout. None
/// where the description is not an entry of an object literal (an argument, a class field) or
/// where `definition` already has a title.
pub fn entry(
    text: &str,
    description: &Span,
    definition: &Span,
    title: &str,
) -> Option<(usize, String)> {
    let defined = text.get(definition.bytes.0..definition.bytes.1)?;
    if has_title(defined) {
        return None;
    }
    let value_at = description.bytes.0;
    let before = text[..value_at].trim_end();
    let (key_at, quote) = if text[value_at..].starts_with("description") && !before.ends_with(':') {
        // `{ name, description, inputSchema }`: the shorthand is its own key.
        (value_at, "")
    } else {
        let key = before.strip_suffix(':')?.trim_end();
        let quote = ["\"", "'"]
            .into_iter()
            .find(|q| key.ends_with(q))
            .unwrap_or("");
        let opened = key.strip_suffix(quote)?.strip_suffix("description")?;
        let start = opened.strip_suffix(quote)?.len();
        (start, quote)
    };
    if !text[..key_at].trim_end().ends_with(['{', ',']) {
        return None;
    }
    // The entries' separator as written before the description: a new line and its indent, or
    // a space.
    let gap_start = text[..key_at].trim_end().len();
    let separator = if text[gap_start..key_at].contains('\n') {
        format!("\n{}", indent_at(text, key_at))
    } else {
        " ".to_string()
    };
    let entry = format!("{quote}title{quote}: {},{separator}", js_string(title));
    Some((key_at, entry))
}

/// Whether a definition's text has a `title` entry of its own (or in its annotations).
fn has_title(defined: &str) -> bool {
    static TITLE_KEY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"(^|[\s{,])["']?title["']?\s*:"#).expect("a valid pattern"));
    TITLE_KEY.is_match(defined)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(text: &str, of: &str) -> Span {
        let at = text.find(of).unwrap();
        Span {
            file: "x.js".into(),
            start_line: 1,
            end_line: 1,
            bytes: (at, at + of.len()),
        }
    }

    fn whole(text: &str) -> Span {
        Span {
            bytes: (0, text.len()),
            ..span(text, &text[..1])
        }
    }

    fn titled(text: &str, description: &str) -> Option<String> {
        let (at, entry) = entry(text, &span(text, description), &whole(text), "Get Weather")?;
        Some(format!("{}{entry}{}", &text[..at], &text[at..]))
    }

    #[test]
    fn a_title_reads_the_words_of_the_name_capitalised() {
        assert_eq!(title_for("get_weather"), "Get Weather");
        assert_eq!(title_for("getWeather"), "Get Weather");
        assert_eq!(title_for("browser-navigate"), "Browser Navigate");
    }

    #[test]
    fn the_title_goes_before_the_description_in_the_objects_own_layout() {
        let lines = "{\n  name: \"get_weather\",\n  description: \"Weather\",\n}";
        assert_eq!(
            titled(lines, "\"Weather\"").unwrap(),
            "{\n  name: \"get_weather\",\n  title: \"Get Weather\",\n  description: \"Weather\",\n}"
        );
        let json = r#"{ "name": "w", "description": "Weather" }"#;
        assert_eq!(
            titled(json, "\"Weather\"").unwrap(),
            r#"{ "name": "w", "title": "Get Weather", "description": "Weather" }"#
        );
        let shorthand = "{ description, inputSchema }";
        assert_eq!(
            titled(shorthand, "description").unwrap(),
            "{ title: \"Get Weather\", description, inputSchema }"
        );
    }

    #[test]
    fn no_title_where_the_description_is_an_argument_or_a_title_is_there() {
        assert_eq!(
            titled("server.tool(\"w\", \"Weather\", {})", "\"Weather\""),
            None
        );
        assert_eq!(
            titled(
                "{ title: \"Weather\", description: \"Weather data\" }",
                "\"Weather data\""
            ),
            None
        );
        assert_eq!(
            titled(
                "{ description: \"Weather\", annotations: { title: \"W\" } }",
                "\"Weather\""
            ),
            None
        );
    }
}
