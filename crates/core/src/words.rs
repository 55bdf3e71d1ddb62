//! Names the rules backend writes: new tool and parameter names that follow the server's
//! naming style, and the words of a name. (Descriptions are written by `prose`.)

/// How a server spells multi-word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Snake,
    Kebab,
    Camel,
}

pub fn case_of(name: &str) -> Case {
    if name.contains('-') {
        Case::Kebab
    } else if name.contains('_') || !name.chars().any(|c| c.is_ascii_uppercase()) {
        Case::Snake
    } else {
        Case::Camel
    }
}

/// `base` followed by `word`, in the case of `base`.
pub fn join(base: &str, word: &str) -> String {
    match case_of(base) {
        Case::Snake => format!("{base}_{word}"),
        Case::Kebab => format!("{base}-{word}"),
        Case::Camel => format!("{base}{}", capitalized(word)),
    }
}

/// `word` followed by `base`, in the case of `base`: `batch_get_notes`, `batchGetNotes`. A
/// name whose last segment is camelCase after a prefix (`mcp_howtocook_getRecipes`) keeps its
/// prefix first: `mcp_howtocook_batchGetRecipes`.
pub fn prefixed(word: &str, base: &str) -> String {
    if let Some(cut) = base.rfind(['_', '-']).map(|i| i + 1)
        && base[cut..].chars().any(|c| c.is_ascii_uppercase())
    {
        return format!("{}{word}{}", &base[..cut], capitalized(&base[cut..]));
    }
    match case_of(base) {
        Case::Snake => format!("{word}_{base}"),
        Case::Kebab => format!("{word}-{base}"),
        Case::Camel => format!("{word}{}", capitalized(base)),
    }
}

/// `word` with its first letter in capitals: `recipe` gives `Recipe`.
pub fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).into_iter();
    first.chain(chars).collect()
}

/// Nouns that take no `s` in the plural: already plural, or uncounted.
const UNCOUNTED: &[&str] = &[
    "dice",
    "data",
    "media",
    "news",
    "info",
    "information",
    "metadata",
    "series",
    "species",
    "people",
    "children",
    "criteria",
    "feedback",
    "software",
    "hardware",
    "equipment",
    "weather",
    "research",
    "advice",
    "code",
    "content",
    "evidence",
    "knowledge",
    "traffic",
    "music",
];

/// `name` with its last word in the plural, in the name's own case (`get_note`: `get_notes`,
/// `getRecipeById`: `getRecipeByIds`), or None where the last word reads as a plural already
/// or is too short to be a noun.
pub fn plural_name(name: &str) -> Option<String> {
    let cut = name
        .char_indices()
        .rev()
        .find(|(i, c)| matches!(c, '_' | '-' | '.') || (c.is_ascii_uppercase() && *i > 0))
        .map_or(0, |(i, c)| if c.is_ascii_uppercase() { i } else { i + 1 });
    let (head, last) = name.split_at(cut);
    let lower = last.to_ascii_lowercase();
    if lower.len() < 2 || !lower.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    // Words that are plural, or have no plural, already: `roll_dice` has no `roll_dices`.
    if UNCOUNTED.contains(&lower.as_str()) {
        return None;
    }
    let singular_s = ["ss", "us", "is"].iter().any(|e| lower.ends_with(e));
    if lower.ends_with('s') && !singular_s {
        return None;
    }
    let consonant_y =
        lower.ends_with('y') && !lower[..lower.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    let plural = if consonant_y {
        format!("{}ies", &last[..last.len() - 1])
    } else if singular_s || ["x", "z", "ch", "sh"].iter().any(|e| lower.ends_with(e)) {
        format!("{last}es")
    } else {
        format!("{last}s")
    };
    // An all-capitals word (`URL`) keeps its capitals: `URLs`.
    Some(format!("{head}{plural}"))
}

/// `name` with its last word in the singular, in the name's own case (`create_entities`:
/// `create_entity`, `openNodes`: `openNode`), or None where the last word is no regular plural.
pub fn singular_name(name: &str) -> Option<String> {
    let (start, end) = *word_spans(name).last()?;
    let one = singular(&name[start..end])?;
    Some(format!("{}{one}{}", &name[..start], &name[end..]))
}

/// A regular plural `word` in the singular (`entities`: `entity`, `matches`: `match`,
/// `names`: `name`), or None where it does not read as one (`status`, `analysis`, `ids`).
pub fn singular(word: &str) -> Option<String> {
    let lower = word.to_ascii_lowercase();
    if lower.len() < 4 || !lower.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let cut = if lower.ends_with("ies") {
        return Some(format!("{}y", &word[..word.len() - 3]));
    } else if ["sses", "xes", "ches", "shes", "zzes"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        2
    } else if lower.ends_with('s') && !["ss", "us", "is"].iter().any(|e| lower.ends_with(e)) {
        1
    } else {
        return None;
    };
    Some(word[..word.len() - cut].to_string())
}

/// Where each word of a name lies in it, as byte ranges (the words of [`words`], unlowered).
pub fn word_spans(name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in name.char_indices() {
        if matches!(c, '_' | '-' | ' ' | '.') {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
        } else if c.is_ascii_uppercase() && start.is_some() {
            out.push((start.take().unwrap_or(i), i));
            start = Some(i);
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, name.len()));
    }
    out
}

/// Words of a name: `get_forecast`, `get-forecast`, `getForecast` all give ["get", "forecast"].
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in name.chars() {
        if c == '_' || c == '-' || c == ' ' || c == '.' {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else if c.is_ascii_uppercase() && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            current.push(c.to_ascii_lowercase());
        } else {
            current.push(c.to_ascii_lowercase());
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_the_servers_case() {
        assert_eq!(join("get_forecast", "preview"), "get_forecast_preview");
        assert_eq!(join("get-alerts", "preview"), "get-alerts-preview");
        assert_eq!(
            join("longRunningOperation", "preview"),
            "longRunningOperationPreview"
        );
        assert_eq!(words("getTinyImage"), ["get", "tiny", "image"]);
    }

    #[test]
    fn word_spans_match_the_words() {
        for name in [
            "get_forecast",
            "getTinyImage",
            "mcp_howtocook_getRecipeById",
            "a-b.c",
        ] {
            let spans: Vec<String> = word_spans(name)
                .iter()
                .map(|&(a, b)| name[a..b].to_ascii_lowercase())
                .collect();
            assert_eq!(spans, words(name), "{name}");
        }
    }

    #[test]
    fn a_word_already_plural_or_uncounted_takes_no_s() {
        assert_eq!(plural_name("roll_dice"), None);
        assert_eq!(plural_name("get_weather"), None);
        assert_eq!(plural_name("get_note").as_deref(), Some("get_notes"));
    }

    #[test]
    fn a_prefixed_name_follows_the_names_case() {
        assert_eq!(prefixed("batch", "search_nodes"), "batch_search_nodes");
        assert_eq!(prefixed("batch", "count-matches"), "batch-count-matches");
        assert_eq!(prefixed("batch", "getRecipes"), "batchGetRecipes");
        assert_eq!(prefixed("batch", "diff"), "batch_diff");
        assert_eq!(
            prefixed("batch", "mcp_howtocook_getAllRecipes"),
            "mcp_howtocook_batchGetAllRecipes"
        );
    }

    #[test]
    fn a_singular_name_takes_the_last_word_out_of_the_plural_in_the_names_case() {
        assert_eq!(
            singular_name("create_entities").as_deref(),
            Some("create_entity")
        );
        assert_eq!(singular_name("openNodes").as_deref(), Some("openNode"));
        assert_eq!(
            singular_name("delete-matches").as_deref(),
            Some("delete-match")
        );
        assert_eq!(
            singular_name("add_observations").as_deref(),
            Some("add_observation")
        );
        assert_eq!(singular_name("get_status"), None);
        assert_eq!(singular_name("get_ids"), None);
        assert_eq!(singular_name("read_graph"), None);
    }

    #[test]
    fn a_plural_name_pluralises_the_last_word_in_the_names_case() {
        assert_eq!(plural_name("get_note").as_deref(), Some("get_notes"));
        assert_eq!(
            plural_name("getRecipeById").as_deref(),
            Some("getRecipeByIds")
        );
        assert_eq!(plural_name("get-entry").as_deref(), Some("get-entries"));
        assert_eq!(
            plural_name("check_status").as_deref(),
            Some("check_statuses")
        );
        assert_eq!(plural_name("search_box").as_deref(), Some("search_boxes"));
        assert_eq!(plural_name("get_day").as_deref(), Some("get_days"));
        assert_eq!(plural_name("list_notes"), None);
        assert_eq!(plural_name("convert_v2"), None);
    }
}
