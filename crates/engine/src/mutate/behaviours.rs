//! What the rules backend's new parameters and bounds do, as code put around a handler (see
//! [`super::wrap`]) and as the claim the oracle checks: a description never promises more than
//! the code written beside it.

use super::around::Around;
pub use super::bound::Bound;
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

/// A kind of new parameter with a real effect on the answer; its name is chosen per tool
/// (`param_names`), and written where its code and sentences say `PARAM`.
pub struct ParamKind {
    /// Its table in `data/param-names.toml`.
    pub key: &'static str,
    /// The JSON-schema type of a [`Takes::Count`] (zod: `z.number().int()`).
    pub ty: &'static str,
    pub takes: Takes,
    /// Wordings of its own description, one chosen by the seed.
    pub descriptions: &'static [&'static str],
    /// Wordings of what it does, for the tool's description.
    pub tool_sentences: &'static [&'static str],
    /// Statements run after the handler: `input[PARAM]` is the value, `result` the answer.
    pub after: &'static str,
    /// The same in Python (`python::wrap`): `arguments` holds the call's arguments, `result`
    /// the answer, and `rework(result, cut)` cuts each of its text parts.
    pub after_py: &'static str,
    pub effect: fn(tool: &str, param: &str) -> Effect,
}

/// A new parameter: its kind under the name chosen for it.
#[derive(Clone)]
pub struct NewParam {
    pub name: String,
    pub kind: &'static ParamKind,
}

impl NewParam {
    pub fn new(kind: &'static ParamKind, name: impl Into<String>) -> NewParam {
        NewParam {
            name: name.into(),
            kind,
        }
    }

    /// `text` with `PARAM` as the parameter's name, quoted where code reads it.
    fn filled(&self, text: &str, quoted: bool) -> String {
        let name = match quoted {
            true => serde_json::to_string(&self.name).expect("a string serializes"),
            false => self.name.clone(),
        };
        text.replace("PARAM", &name)
    }

    /// Its statements after the handler, in JavaScript.
    pub fn after(&self) -> String {
        self.filled(self.kind.after, true)
    }

    /// Its statements after the handler, in Python.
    pub fn after_py(&self) -> String {
        self.filled(self.kind.after_py, true)
    }

    /// Wordings of what it does, naming it, for the tool's description.
    pub fn tool_sentences(&self) -> Vec<String> {
        (self.kind.tool_sentences.iter())
            .map(|s| self.filled(s, false))
            .collect()
    }

    /// What it makes `tool` do, for the oracle.
    pub fn effect(&self, tool: &str) -> Effect {
        (self.kind.effect)(tool, &self.name)
    }

    pub fn ty(&self) -> &'static str {
        self.kind.ty
    }

    pub fn takes(&self) -> Takes {
        self.kind.takes
    }

    pub fn cuts(&self) -> bool {
        self.kind.cuts()
    }

    pub fn skips(&self) -> bool {
        self.kind.skips()
    }

    pub fn by_lines(&self) -> bool {
        self.kind.by_lines()
    }
}

/// Cuts every text part of `result` (or a plain string result) with `cut(text)`.
macro_rules! reworks_text {
    ($cut:literal) => {
        concat!(
            "const limit = input[PARAM];\n",
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
    ($cut:literal) => {
        concat!(
            "limit = arguments.get(PARAM)\n",
            "if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:\n",
            "    result = rework(result, lambda text: ",
            $cut,
            ")"
        )
    };
}

pub const PARAM_KINDS: &[ParamKind] = &[
    ParamKind {
        key: "chars",
        ty: "integer",
        takes: Takes::Count,
        descriptions: &[
            "Cut each text part of the result to at most this many characters. Leave it out for the full text.",
            "The most characters each text part of the result keeps; the rest is cut off. Without it, text is not cut.",
            "How many characters of each text part of the result to keep; the rest is cut off. Leave it out for the whole text.",
        ],
        tool_sentences: &[
            "Set `PARAM` to cut each text part of the result to that many characters.",
            "`PARAM` cuts each text part of the result to at most that many characters.",
            "With `PARAM`, each text part of the result is cut to that many characters.",
        ],
        after: reworks_text!("Array.from(text).slice(0, limit).join(\"\")"),
        after_py: reworks_text_py!("text[:limit]"),
        effect: |tool, param| Effect::TruncateChars {
            tool: tool.into(),
            param: param.into(),
        },
    },
    ParamKind {
        key: "lines",
        ty: "integer",
        takes: Takes::Count,
        descriptions: &[
            "Keep at most this many lines of each text part of the result. Leave it out for every line.",
            "The most lines each text part of the result keeps, from its start. Without it, every line is kept.",
            "How many lines of each text part of the result to keep, from the top. Leave it out for all lines.",
        ],
        tool_sentences: &[
            "Set `PARAM` to keep only that many lines of each text part of the result, from the top.",
            "`PARAM` keeps at most that many lines of each text part of the result, from the top.",
            "With `PARAM`, only the first lines of each text part of the result are kept, up to that many.",
        ],
        after: reworks_text!("text.split(\"\\n\").slice(0, limit).join(\"\\n\")"),
        after_py: reworks_text_py!("\"\\n\".join(text.split(\"\\n\")[:limit])"),
        effect: |tool, param| Effect::TruncateLines {
            tool: tool.into(),
            param: param.into(),
        },
    },
    // Pages through a long answer: added with a cut by lines, it runs first (see
    // [`around_params`]), so that the two together give the lines after the skipped ones. It
    // is not added to a tool that cuts its answers already (`rules::expansion::fresh_params`): wrapped
    // around that cut, it would skip lines of the cut answer.
    ParamKind {
        key: "skip",
        ty: "integer",
        takes: Takes::Count,
        descriptions: &[
            "How many lines to skip at the start of each text part of the result, to read a long answer further on. Leave it out to start at the first line.",
            "Lines left out at the start of each text part of the result. Without it, the answer starts at its first line.",
            "Skip this many lines of each text part of the result before returning the rest. Leave it out to get every line.",
        ],
        tool_sentences: &[
            "Set `PARAM` to skip that many lines at the start of each text part of the result.",
            "`PARAM` leaves out that many lines at the start of each text part of the result.",
            "With `PARAM`, the first lines of each text part of the result are skipped, that many of them.",
        ],
        after: reworks_text!("text.split(\"\\n\").slice(limit).join(\"\\n\")"),
        after_py: reworks_text_py!("\"\\n\".join(text.split(\"\\n\")[limit:])"),
        effect: |tool, param| Effect::SkipLines {
            tool: tool.into(),
            param: param.into(),
        },
    },
    // A projection of JSON answers, as APIs take a `fields` list: offered only where the
    // tool's previous answers were JSON objects (`Context::json`), whose keys it can name.
    ParamKind {
        key: "keys",
        ty: "array",
        takes: Takes::Keys,
        descriptions: &[
            "Names of the keys to keep in each JSON object of the result (the top-level object, or each object of a top-level list); the other keys are left out. Leave it out for every key.",
            "Key names to keep in the JSON objects of the result, at the top level or in each item of a top-level list. Without it, every key is returned.",
            "Which keys of each JSON object in the result to return (the object itself, or each object of a list); the rest are dropped. Leave it out to get all keys.",
        ],
        tool_sentences: &[
            "Set `PARAM` to a list of key names to keep only those keys of the JSON objects in the result.",
            "`PARAM` keeps only the listed keys of each JSON object in the result.",
            "With `PARAM`, each JSON object in the result keeps only the keys listed.",
        ],
        after: concat!(
            "const keep = input[PARAM];\n",
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
    ParamKind {
        key: "layout",
        ty: "string",
        takes: Takes::Layout,
        descriptions: &[
            "How to write the JSON of the result: `compact` on one line, `indented` with two-space indentation. Leave it out for the tool's own layout.",
            "Layout of each JSON text part of the result: `compact` (one line) or `indented` (two spaces per level). Without it, the JSON is written as before.",
            "`compact` writes the JSON of the result on a single line; `indented` spreads it over lines, indented by two spaces. Leave it out to keep the layout as it is.",
        ],
        tool_sentences: &[
            "Set `PARAM` to `compact` or `indented` to choose how the JSON of the result is laid out.",
            "`PARAM` writes the JSON of the result on one line (`compact`) or indented by two spaces (`indented`).",
            "With `PARAM`, the JSON of the result comes on one line (`compact`) or indented (`indented`).",
        ],
        after: concat!(
            "const layout = input[PARAM];\n",
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
            .map(|p| p.after_py())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Code that runs the after-steps of several new parameters in one wrapper, each in its own
/// block so that their names do not clash; lines are skipped before any cut.
pub fn around_params(params: &[&NewParam]) -> Around {
    let after: Vec<String> = in_order(params)
        .iter()
        .map(|p| format!("{{\n{}\n}}", p.after()))
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
    ordered.sort_by_key(|p| {
        let takes = p.takes();
        (takes != Takes::Keys, takes != Takes::Layout, !p.skips())
    });
    ordered
}

impl ParamKind {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_skipped_before_any_cut_whatever_order_the_parameters_were_drawn_in() {
        let by = |key: &str, name: &str| {
            NewParam::new(PARAM_KINDS.iter().find(|p| p.key == key).unwrap(), name)
        };
        let (lines, skip, chars) = (
            by("lines", "limit"),
            by("skip", "start"),
            by("chars", "length"),
        );
        let after = around_params(&[&lines, &skip, &chars]).after;
        let at = after.find("input[\"start\"]").unwrap();
        assert!(at < after.find("input[\"limit\"]").unwrap(), "{after}");
        assert!(at < after.find("input[\"length\"]").unwrap(), "{after}");
        let keys = by("keys", "fields");
        let both = around_params(&[&skip, &keys]).after;
        assert!(
            both.find("input[\"fields\"]").unwrap() < both.find("input[\"start\"]").unwrap(),
            "{both}"
        );
        let py = around_params_py(&[&lines, &skip]).after;
        assert!(
            py.find("\"start\"").unwrap() < py.find("\"limit\"").unwrap(),
            "{py}"
        );
    }
}
