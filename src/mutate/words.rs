//! The words the rules backend writes: new tool and parameter names that follow the server's
//! naming style, and rewritten descriptions that say more than the old ones.

use crate::inventory::{Param, Tool};

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
        Case::Camel => {
            let mut chars = word.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase()).into_iter();
            format!("{base}{}", first.chain(chars).collect::<String>())
        }
    }
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

/// Suffixes for a tool added beside an existing one, with what the variant is for.
pub const VARIANTS: &[(&str, &str)] = &[
    (
        "alias",
        "Alias of `{name}`: it behaves exactly as `{name}` does",
    ),
    (
        "v1",
        "Alias of `{name}` under a versioned name: it behaves exactly as `{name}` does",
    ),
    (
        "compat",
        "Compatibility alias of `{name}`: it behaves exactly as `{name}` does",
    ),
];

fn sentence(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() || t.ends_with(['.', '!', '?']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

fn capitalized(words: &[String]) -> String {
    let joined = words.join(" ");
    let mut chars = joined.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn param_summary(params: &[Param]) -> String {
    if params.is_empty() {
        return "no parameters".into();
    }
    let list: Vec<String> = params
        .iter()
        .map(|p| {
            let need = if p.required { "required" } else { "optional" };
            format!(
                "`{}` ({}, {need})",
                p.name,
                p.ty.as_deref().unwrap_or("any")
            )
        })
        .collect();
    list.join(", ")
}

/// A rewritten tool description: the old meaning kept, with what a caller needs added. Each
/// variant differs from the old text by more than punctuation.
pub fn tool_description(tool: &Tool, variant: usize) -> String {
    let old = sentence(tool.description.as_deref().unwrap_or(""));
    let what = capitalized(&words(&tool.name));
    let new = match variant % 3 {
        0 => format!("{what}. {old} Takes {}.", param_summary(&tool.params)),
        1 => format!(
            "{old} Use `{}` to {}.",
            tool.name,
            words(&tool.name).join(" ")
        ),
        _ => format!("[{}] {old} Inputs: {}.", what, param_summary(&tool.params)),
    };
    new.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A rewritten parameter description.
pub fn param_description(param: &Param, variant: usize) -> String {
    let old = sentence(param.description.as_deref().unwrap_or(""));
    let what = words(&param.name).join(" ");
    let ty = param.ty.as_deref().unwrap_or("value");
    let need = if param.required {
        "Required"
    } else {
        "Optional"
    };
    let new = match variant % 2 {
        _ if old.is_empty() => format!("{need} {ty}: the {what}."),
        0 => format!("{need} {ty}: the {what}. {old}"),
        _ => format!("{old} ({ty}; {}).", need.to_lowercase()),
    };
    new.split_whitespace().collect::<Vec<_>>().join(" ")
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
    fn every_description_variant_differs_from_the_old_text() {
        let tool = Tool {
            name: "get_forecast".into(),
            style: crate::inventory::Style::Register,
            definition: crate::inventory::Span {
                file: "a.js".into(),
                start_line: 1,
                end_line: 1,
                bytes: (0, 0),
            },
            handler: None,
            description: Some("Get the forecast".into()),
            params: vec![Param {
                name: "city".into(),
                ty: Some("string".into()),
                description: None,
                required: true,
            }],
            sites: Default::default(),
        };
        for v in 0..3 {
            let d = tool_description(&tool, v);
            assert_ne!(d, "Get the forecast");
            assert!(
                d.contains("Get the forecast."),
                "keeps the old meaning: {d}"
            );
        }
        for v in 0..2 {
            assert_ne!(param_description(&tool.params[0], v), "");
        }
    }
}
