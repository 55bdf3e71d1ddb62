//! What the rules backend's new parameters and bounds do, as code put around a handler (see
//! [`super::wrap`]) and as the claim the oracle checks: a description never promises more than
//! the code written beside it.

use super::around::Around;
use mcpevol_oracle::validate::Effect;
use mcpevol_oracle::validate::effect::Layout;

/// What a new parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// A count, 1 or more (zod: `z.number().int().min(1)`).
    Count,
    /// A list of key names, one or more (zod: `z.array(z.string()).min(1)`); only for tools
    /// whose answers are JSON objects, and not in Python (it has no `after_py`).
    Keys,
    /// One of [`LAYOUTS`] (zod: `z.enum([...])`); as [`Takes::Keys`], only for tools whose
    /// answers are JSON, and not in Python.
    Layout,
}

impl Takes {
    /// Whether it reworks JSON answers, and so is offered only where they are JSON.
    pub fn on_json(self) -> bool {
        matches!(self, Takes::Keys | Takes::Layout)
    }
}

/// The values of a [`Takes::Layout`] parameter, as [`Layout::value`] names them.
pub const LAYOUTS: [&str; 2] = [Layout::Compact.value(), Layout::Indented.value()];

/// An optional parameter with a real effect on the answer.
pub struct NewParam {
    pub name: &'static str,
    /// The JSON-schema type of a [`Takes::Count`] (zod: `z.number().int()`).
    pub ty: &'static str,
    pub takes: Takes,
    /// Wordings of its own description, one chosen by the seed.
    pub descriptions: &'static [&'static str],
    /// Wordings of what it does, for the tool's description.
    pub tool_sentences: &'static [&'static str],
    /// Statements run after the handler: `input.<name>` is the value, `result` the answer.
    pub after: &'static str,
    /// The same in Python (`python::wrap`): `arguments` holds the call's arguments, `result`
    /// the answer, and `rework(result, cut)` cuts each of its text parts.
    pub after_py: &'static str,
    pub effect: fn(tool: &str, param: &str) -> Effect,
}

/// Cuts every text part of `result` (or a plain string result) with `cut(text)`.
macro_rules! reworks_text {
    ($param:literal, $cut:literal) => {
        concat!(
            "const limit = input.", $param, ";\n",
            "const cut = (text) => ", $cut, ";\n",
            "if (Number.isInteger(limit) && limit > 0) {\n",
            "if (typeof result === \"string\") {\n",
            "result = cut(result);\n",
            "} else if (Array.isArray(result?.content)) {\n",
            "result = { ...result, content: result.content.map((part) => (part?.type === \"text\" && typeof part.text === \"string\" ? { ...part, text: cut(part.text) } : part)) };\n",
            "}\n",
            "}"
        )
    };
}

/// The same in Python: cuts every text part of `result` with `cut(text)`.
macro_rules! reworks_text_py {
    ($param:literal, $cut:literal) => {
        concat!(
            "limit = arguments.get(\"",
            $param,
            "\")\n",
            "if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:\n",
            "    result = rework(result, lambda text: ",
            $cut,
            ")"
        )
    };
}

pub const NEW_PARAMS: &[NewParam] = &[
    NewParam {
        name: "max_chars",
        ty: "integer",
        takes: Takes::Count,
        descriptions: &[
            "Cut each text part of the result to at most this many characters. Leave it out for the full text.",
            "The most characters each text part of the result keeps; the rest is cut off. Without it, text is not cut.",
            "How many characters of each text part of the result to keep; the rest is cut off. Leave it out for the whole text.",
        ],
        tool_sentences: &[
            "Set `max_chars` to cut each text part of the result to that many characters.",
            "`max_chars` cuts each text part of the result to at most that many characters.",
            "With `max_chars`, each text part of the result is cut to that many characters.",
        ],
        after: reworks_text!("max_chars", "Array.from(text).slice(0, limit).join(\"\")"),
        after_py: reworks_text_py!("max_chars", "text[:limit]"),
        effect: |tool, param| Effect::TruncateChars {
            tool: tool.into(),
            param: param.into(),
        },
    },
    NewParam {
        name: "max_lines",
        ty: "integer",
        takes: Takes::Count,
        descriptions: &[
            "Keep at most this many lines of each text part of the result. Leave it out for every line.",
            "The most lines each text part of the result keeps, from its start. Without it, every line is kept.",
            "How many lines of each text part of the result to keep, from the top. Leave it out for all lines.",
        ],
        tool_sentences: &[
            "Set `max_lines` to keep only that many lines of each text part of the result, from the top.",
            "`max_lines` keeps at most that many lines of each text part of the result, from the top.",
            "With `max_lines`, only the first lines of each text part of the result are kept, up to that many.",
        ],
        after: reworks_text!(
            "max_lines",
            "text.split(\"\\n\").slice(0, limit).join(\"\\n\")"
        ),
        after_py: reworks_text_py!("max_lines", "\"\\n\".join(text.split(\"\\n\")[:limit])"),
        effect: |tool, param| Effect::TruncateLines {
            tool: tool.into(),
            param: param.into(),
        },
    },
    // Pages through a long answer: added with `max_lines`, it runs first (see
    // [`around_params`]), so that the two together give the lines after the skipped ones. It
    // is not added to a tool that cuts its answers already (`rules::expansion::fresh_params`): wrapped
    // around that cut, it would skip lines of the cut answer.
    NewParam {
        name: "offset",
        ty: "integer",
        takes: Takes::Count,
        descriptions: &[
            "How many lines to skip at the start of each text part of the result, to read a long answer further on. Leave it out to start at the first line.",
            "Lines left out at the start of each text part of the result. Without it, the answer starts at its first line.",
            "Skip this many lines of each text part of the result before returning the rest. Leave it out to get every line.",
        ],
        tool_sentences: &[
            "Set `offset` to skip that many lines at the start of each text part of the result.",
            "`offset` leaves out that many lines at the start of each text part of the result.",
            "With `offset`, the first lines of each text part of the result are skipped, that many of them.",
        ],
        after: reworks_text!("offset", "text.split(\"\\n\").slice(limit).join(\"\\n\")"),
        after_py: reworks_text_py!("offset", "\"\\n\".join(text.split(\"\\n\")[limit:])"),
        effect: |tool, param| Effect::SkipLines {
            tool: tool.into(),
            param: param.into(),
        },
    },
    // A projection of JSON answers, as APIs take a `fields` list: offered only where the
    // tool's previous answers were JSON objects (`Context::json`), whose keys it can name.
    NewParam {
        name: "fields",
        ty: "array",
        takes: Takes::Keys,
        descriptions: &[
            "Names of the keys to keep in each JSON object of the result (the top-level object, or each object of a top-level list); the other keys are left out. Leave it out for every key.",
            "Key names to keep in the JSON objects of the result, at the top level or in each item of a top-level list. Without it, every key is returned.",
            "Which keys of each JSON object in the result to return (the object itself, or each object of a list); the rest are dropped. Leave it out to get all keys.",
        ],
        tool_sentences: &[
            "Set `fields` to a list of key names to keep only those keys of the JSON objects in the result.",
            "`fields` keeps only the listed keys of each JSON object in the result.",
            "With `fields`, each JSON object in the result keeps only the keys listed.",
        ],
        after: concat!(
            "const keep = input.fields;\n",
            "if (Array.isArray(keep) && keep.length > 0) {\n",
            "const pick = (value) => (Array.isArray(value) ? value.map(pick) : value && typeof value === \"object\" ? Object.fromEntries(Object.entries(value).filter(([key]) => keep.includes(key))) : value);\n",
            "const project = (text) => {\n",
            "try {\n",
            "return JSON.stringify(pick(JSON.parse(text)), null, text.includes(\"\\n\") ? 2 : undefined);\n",
            "} catch {\n",
            "return text;\n",
            "}\n",
            "};\n",
            "if (typeof result === \"string\") {\n",
            "result = project(result);\n",
            "} else if (Array.isArray(result?.content)) {\n",
            "result = { ...result, content: result.content.map((part) => (part?.type === \"text\" && typeof part.text === \"string\" ? { ...part, text: project(part.text) } : part)) };\n",
            "}\n",
            "}"
        ),
        after_py: "",
        effect: |tool, param| Effect::Project {
            tool: tool.into(),
            param: param.into(),
        },
    },
    // An output format switch, as APIs take `format=compact`: offered only where the tool's
    // previous answers were JSON objects. Left out, the answer is written as before.
    NewParam {
        name: "format",
        ty: "string",
        takes: Takes::Layout,
        descriptions: &[
            "How to write the JSON of the result: `compact` on one line, `indented` with two-space indentation. Leave it out for the tool's own layout.",
            "Layout of each JSON text part of the result: `compact` (one line) or `indented` (two spaces per level). Without it, the JSON is written as before.",
            "`compact` writes the JSON of the result on a single line; `indented` spreads it over lines, indented by two spaces. Leave it out to keep the layout as it is.",
        ],
        tool_sentences: &[
            "Set `format` to `compact` or `indented` to choose how the JSON of the result is laid out.",
            "`format` writes the JSON of the result on one line (`compact`) or indented by two spaces (`indented`).",
            "With `format`, the JSON of the result comes on one line (`compact`) or indented (`indented`).",
        ],
        after: concat!(
            "const layout = input.format;\n",
            "if (layout === \"compact\" || layout === \"indented\") {\n",
            "const relay = (text) => {\n",
            "try {\n",
            "return JSON.stringify(JSON.parse(text), null, layout === \"indented\" ? 2 : undefined);\n",
            "} catch {\n",
            "return text;\n",
            "}\n",
            "};\n",
            "if (typeof result === \"string\") {\n",
            "result = relay(result);\n",
            "} else if (Array.isArray(result?.content)) {\n",
            "result = { ...result, content: result.content.map((part) => (part?.type === \"text\" && typeof part.text === \"string\" ? { ...part, text: relay(part.text) } : part)) };\n",
            "}\n",
            "}"
        ),
        after_py: "",
        effect: |tool, param| Effect::Reformat {
            tool: tool.into(),
            param: param.into(),
        },
    },
];

/// [`around_params`] for a handler in Python.
pub fn around_params_py(params: &[&NewParam]) -> Around {
    Around {
        before: String::new(),
        after: in_order(params)
            .iter()
            .map(|p| p.after_py)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Code that runs the after-steps of several new parameters in one wrapper, each in its own
/// block so that their names do not clash; lines are skipped before any cut.
pub fn around_params(params: &[&NewParam]) -> Around {
    let after: Vec<String> = in_order(params)
        .iter()
        .map(|p| format!("{{\n{}\n}}", p.after))
        .collect();
    Around {
        before: String::new(),
        after: after.join("\n"),
    }
}

/// `params` in the order their after-steps run: a projection of JSON first (it reads the whole
/// answer), then its layout (a cut JSON text no longer parses), then a skip of lines, then the
/// cuts.
fn in_order<'a>(params: &[&'a NewParam]) -> Vec<&'a NewParam> {
    let mut ordered = params.to_vec();
    ordered.sort_by_key(|p| (p.takes != Takes::Keys, p.takes != Takes::Layout, !p.skips()));
    ordered
}

impl NewParam {
    /// Whether it cuts the answer short (by characters or lines).
    pub fn cuts(&self) -> bool {
        matches!(
            (self.effect)("", ""),
            Effect::TruncateChars { .. } | Effect::TruncateLines { .. }
        )
    }

    /// Whether it leaves lines out rather than cutting the answer short.
    pub fn skips(&self) -> bool {
        matches!((self.effect)("", ""), Effect::SkipLines { .. })
    }

    /// Whether it reworks the answer by lines, which could not show on one-line answers.
    pub fn by_lines(&self) -> bool {
        matches!(
            (self.effect)("", ""),
            Effect::TruncateLines { .. } | Effect::SkipLines { .. }
        )
    }
}

/// A new bound on a parameter, in the schema and enforced before the handler runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    MaxLength(u32),
    Maximum(u32),
    MaxItems(u32),
}

impl Bound {
    /// The bound for a parameter of JSON-schema type `ty`, if one fits.
    pub fn for_type(ty: &str) -> Option<Bound> {
        match ty {
            "string" => Some(Bound::MaxLength(500)),
            "number" | "integer" => Some(Bound::Maximum(1_000_000)),
            "array" => Some(Bound::MaxItems(100)),
            _ => None,
        }
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
        let (test, words) = match self {
            Bound::MaxLength(n) => (
                format!("typeof value === \"string\" && Array.from(value).length > {n}"),
                format!("at most {n} characters"),
            ),
            Bound::Maximum(n) => (
                format!("typeof value === \"number\" && value > {n}"),
                format!("at most {n}"),
            ),
            Bound::MaxItems(n) => (
                format!("Array.isArray(value) && value.length > {n}"),
                format!("at most {n} items"),
            ),
        };
        let message =
            serde_json::to_string(&format!("`{param}` must be {words}.")).expect("serializes");
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
        let (test, words) = match self {
            Bound::MaxLength(n) => (
                format!("isinstance(value, str) and len(value) > {n}"),
                format!("at most {n} characters"),
            ),
            Bound::Maximum(n) => (
                format!(
                    "isinstance(value, (int, float)) and not isinstance(value, bool) and value > {n}"
                ),
                format!("at most {n}"),
            ),
            Bound::MaxItems(n) => (
                format!("isinstance(value, list) and len(value) > {n}"),
                format!("at most {n} items"),
            ),
        };
        let message =
            serde_json::to_string(&format!("`{param}` must be {words}.")).expect("serializes");
        Around {
            before: format!(
                "value = arguments.get({key})\nif {test}:\n    raise ValueError({message})"
            ),
            after: String::new(),
        }
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
    fn lines_are_skipped_before_any_cut_whatever_order_the_parameters_were_drawn_in() {
        let by = |name: &str| NEW_PARAMS.iter().find(|p| p.name == name).unwrap();
        let after = around_params(&[by("max_lines"), by("offset"), by("max_chars")]).after;
        let skip = after.find("input.offset").unwrap();
        assert!(skip < after.find("input.max_lines").unwrap(), "{after}");
        assert!(skip < after.find("input.max_chars").unwrap(), "{after}");
        let both = around_params(&[by("offset"), by("fields")]).after;
        assert!(
            both.find("input.fields").unwrap() < both.find("input.offset").unwrap(),
            "{both}"
        );
        let py = around_params_py(&[by("max_lines"), by("offset")]).after;
        assert!(
            py.find("\"offset\"").unwrap() < py.find("\"max_lines\"").unwrap(),
            "{py}"
        );
    }
}
