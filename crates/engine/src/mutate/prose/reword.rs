//! A description reworded where it stands, its facts kept: the opening verb moved between the
//! imperative and the third person ("Get the forecast" and "Gets the forecast"), as maintainers
//! bring a server's descriptions to one voice. What Tool Description Update writes where the
//! rules know no fact the description lacks (a schema listed back is no such fact).

/// Verbs descriptions open with, in the imperative.
const VERBS: &[&str] = &[
    "add",
    "analyze",
    "append",
    "approve",
    "calculate",
    "check",
    "click",
    "close",
    "compare",
    "compute",
    "convert",
    "copy",
    "count",
    "create",
    "decode",
    "delete",
    "describe",
    "download",
    "echo",
    "encode",
    "evaluate",
    "execute",
    "explain",
    "export",
    "extract",
    "fetch",
    "fill",
    "find",
    "format",
    "generate",
    "get",
    "hash",
    "import",
    "insert",
    "inspect",
    "install",
    "list",
    "load",
    "look",
    "make",
    "mark",
    "move",
    "navigate",
    "open",
    "parse",
    "perform",
    "print",
    "publish",
    "query",
    "read",
    "record",
    "remove",
    "rename",
    "render",
    "reply",
    "request",
    "retrieve",
    "return",
    "reverse",
    "roll",
    "run",
    "save",
    "search",
    "send",
    "set",
    "show",
    "simulate",
    "start",
    "stop",
    "summarize",
    "take",
    "test",
    "track",
    "translate",
    "update",
    "upload",
    "validate",
    "verify",
    "write",
];

/// Words that follow an opening verb and could not follow an opening noun: where the first
/// word is followed by one, it is read as a verb even if the list lacks it.
const OBJECTS: &[&str] = &[
    "a", "an", "the", "all", "each", "every", "one", "multiple", "your",
];

/// `verb` in the third person singular: `gets`, `searches`, `queries`.
fn third_person(verb: &str) -> String {
    if verb.ends_with('y') && !verb.ends_with("ay") && !verb.ends_with("ey") {
        format!("{}ies", &verb[..verb.len() - 1])
    } else if ["s", "x", "z", "ch", "sh", "o"]
        .iter()
        .any(|e| verb.ends_with(e))
    {
        format!("{verb}es")
    } else {
        format!("{verb}s")
    }
}

/// `text` with its opening verb in the other voice, its case kept, or None where it opens
/// with no verb the list knows.
pub fn reword(text: &str) -> Option<String> {
    let lead = text.len() - text.trim_start().len();
    let body = &text[lead..];
    let end = body
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(body.len());
    let word = &body[..end];
    if word.is_empty() || end == body.len() {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let next = body[end..].split_whitespace().next().unwrap_or_default();
    let before_object = body[end..].starts_with(' ') && OBJECTS.contains(&next);
    let other = if VERBS.contains(&lower.as_str()) {
        third_person(&lower)
    } else if let Some(v) = VERBS.iter().find(|v| third_person(v) == lower) {
        v.to_string()
    } else if before_object && lower.len() > 3 && !lower.ends_with('s') && !lower.ends_with("ed") {
        third_person(&lower)
    } else if before_object && lower.len() > 4 && lower.ends_with('s') && !lower.ends_with("ss") {
        // Third person of a verb the list lacks: `Shouts the` becomes `Shout the`.
        lower[..lower.len() - 1].to_string()
    } else {
        return None;
    };
    let other = match word.starts_with(|c: char| c.is_ascii_uppercase()) {
        true => mcpevol_core::words::capitalized(&other),
        false => other,
    };
    Some(format!("{}{other}{}", &text[..lead], &body[end..]))
}

#[cfg(test)]
mod tests {
    use super::reword;

    #[test]
    fn the_opening_verb_moves_between_the_imperative_and_the_third_person() {
        assert_eq!(
            reword("Get the forecast for a city").unwrap(),
            "Gets the forecast for a city"
        );
        assert_eq!(reword("Gets the forecast.").unwrap(), "Get the forecast.");
        assert_eq!(
            reword("Search notes by tag").unwrap(),
            "Searches notes by tag"
        );
        assert_eq!(reword("Queries the index").unwrap(), "Query the index");
        assert_eq!(
            reword("Echo back the input").unwrap(),
            "Echoes back the input"
        );
        assert_eq!(reword("  list cities").unwrap(), "  lists cities");
        assert_eq!(reword("Shout the text").unwrap(), "Shouts the text");
        assert_eq!(reword("Greets the user").unwrap(), "Greet the user");
        assert_eq!(reword("The weather today"), None);
        assert_eq!(reword("Weather today"), None);
        assert_eq!(reword("Get"), None);
    }
}
