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
}
