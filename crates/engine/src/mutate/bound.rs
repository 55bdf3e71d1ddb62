//! A new bound on a parameter: its size by what the parameter's name says it holds, its
//! schema entry in zod and JSON schema, and the code that enforces it before the handler.

use super::around::Around;

/// A new bound on a parameter, in the schema and enforced before the handler runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    MaxLength(u32),
    Maximum(u32),
    MaxItems(u32),
}

impl Bound {
    /// The bound for a parameter named `name` of JSON-schema type `ty`, if one fits, sized by
    /// what the name says it holds (a search query is short, a path or a text long, a count
    /// of results small): one size for every string read as a machine's habit.
    pub fn for_param(name: &str, ty: &str) -> Option<Bound> {
        let words = mcpevol_core::words::words(name);
        let says = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        Some(match ty {
            "string" if says(&["id", "uuid", "key", "sha", "hash"]) => Bound::MaxLength(128),
            "string" if says(&["name", "title", "label", "tag", "slug", "branch"]) => {
                Bound::MaxLength(200)
            }
            "string"
                if says(&[
                    "query", "q", "search", "keyword", "keywords", "term", "pattern",
                ]) =>
            {
                Bound::MaxLength(500)
            }
            "string" if says(&["path", "file", "dir", "directory", "url", "uri", "link"]) => {
                Bound::MaxLength(2048)
            }
            "string"
                if says(&[
                    "text", "content", "body", "message", "prompt", "code", "markdown", "html",
                    "data", "input",
                ]) =>
            {
                Bound::MaxLength(20_000)
            }
            "string" => Bound::MaxLength(1000),
            "number" | "integer" if says(&["limit", "count", "top", "results", "page"]) => {
                Bound::Maximum(1000)
            }
            "number" | "integer" if says(&["depth", "level", "levels", "retries", "attempts"]) => {
                Bound::Maximum(20)
            }
            "number" | "integer" if says(&["port"]) => Bound::Maximum(65535),
            // Sizes of text, then lines of it, then waits: each as large as such a value gets
            // in use, and under the 100000 the oracle probes bounds with.
            "number" | "integer"
                if says(&["length", "chars", "characters", "size", "bytes", "tokens"]) =>
            {
                Bound::Maximum(50_000)
            }
            "number" | "integer" if says(&["lines", "rows", "entries"]) => Bound::Maximum(10_000),
            "number" | "integer" if says(&["ms", "millis", "milliseconds"]) => {
                Bound::Maximum(60_000)
            }
            "number" | "integer" if says(&["seconds", "secs", "timeout", "wait"]) => {
                Bound::Maximum(3600)
            }
            "number" | "integer" => Bound::Maximum(1_000_000),
            "array" if says(&["ids", "paths", "files", "urls", "names"]) => Bound::MaxItems(50),
            "array" => Bound::MaxItems(100),
            _ => return None,
        })
    }

    /// The zod call that declares it (`.max(500)`).
    pub fn zod(self) -> String {
        match self {
            Bound::MaxLength(n) | Bound::Maximum(n) | Bound::MaxItems(n) => format!(".max({n})"),
        }
    }

    /// The JSON-schema entry that declares it (`maxLength: 500`).
    pub fn json(self) -> String {
        match self {
            Bound::MaxLength(n) => format!("maxLength: {n}"),
            Bound::Maximum(n) => format!("maximum: {n}"),
            Bound::MaxItems(n) => format!("maxItems: {n}"),
        }
    }

    /// Code that refuses a value beyond the bound with an error answer, before the handler.
    pub fn enforce(self, param: &str) -> Around {
        let key = serde_json::to_string(param).expect("a string serializes");
        let test = match self {
            Bound::MaxLength(n) => {
                format!("typeof value === \"string\" && Array.from(value).length > {n}")
            }
            Bound::Maximum(n) => format!("typeof value === \"number\" && value > {n}"),
            Bound::MaxItems(n) => format!("Array.isArray(value) && value.length > {n}"),
        };
        let message = self.refusal(param);
        Around {
            before: format!(
                "{{\nconst value = input[{key}];\nif ({test}) {{\nreturn {{ content: [{{ type: \"text\", text: {message} }}], isError: true }};\n}}\n}}"
            ),
            after: String::new(),
        }
    }

    /// [`Bound::enforce`] for a handler in Python: the call is refused by raising, which the
    /// SDK answers as an error result.
    pub fn enforce_py(self, param: &str) -> Around {
        let key = serde_json::to_string(param).expect("a string serializes");
        let test = match self {
            Bound::MaxLength(n) => format!("isinstance(value, str) and len(value) > {n}"),
            Bound::Maximum(n) => format!(
                "isinstance(value, (int, float)) and not isinstance(value, bool) and value > {n}"
            ),
            Bound::MaxItems(n) => format!("isinstance(value, list) and len(value) > {n}"),
        };
        let message = self.refusal(param);
        Around {
            before: format!(
                "value = arguments.get({key})\nif {test}:\n    raise ValueError({message})"
            ),
            after: String::new(),
        }
    }

    /// The refusal of a value beyond it, as a quoted string: "`q` must be at most 500
    /// characters.".
    fn refusal(self, param: &str) -> String {
        let words = match self {
            Bound::MaxLength(n) => format!("at most {n} characters"),
            Bound::Maximum(n) => format!("at most {n}"),
            Bound::MaxItems(n) => format!("at most {n} items"),
        };
        serde_json::to_string(&format!("`{param}` must be {words}.")).expect("serializes")
    }

    /// Words for the round's summary: "maxLength 500".
    pub fn words(self) -> String {
        self.json().replace(':', "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_is_sized_by_what_the_parameters_name_says_it_counts() {
        let max = |name: &str| match Bound::for_param(name, "integer") {
            Some(Bound::Maximum(n)) => n,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(max("maxOutputLength"), 50_000);
        assert_eq!(max("max_chars"), 50_000);
        assert_eq!(max("max_lines"), 10_000);
        assert_eq!(max("timeout_ms"), 60_000);
        assert_eq!(max("timeoutSeconds"), 3600);
        assert_eq!(max("limit"), 1000);
        assert!(
            max("maxOutputLength") < 100_000,
            "the oracle probes bounds under 100000"
        );
        assert_eq!(
            Bound::for_param("query", "string"),
            Some(Bound::MaxLength(500))
        );
    }
}
