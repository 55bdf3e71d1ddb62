//! The sentences the rules write into descriptions: facts about a tool in, sentences out.
//!
//! Every sentence states something read from the tool ([`facts::ToolFacts`]: its schema, what
//! its handler's code returns, its declared output, related tools) or from the change a rule
//! makes (an alias, a rename, a new parameter and the code that makes it act, a bound), never
//! more. Facts the description already states are not said again. Each fact has several
//! wordings and the seeded [`Rng`] picks one, so that tools and seeds read differently while
//! the same seed writes the same words. [`attach`] puts sentences where the original's author
//! would: on its line, as a new paragraph, indented alike.

pub mod attach;
pub mod facts;
mod phrases;
pub mod reword;

pub use facts::{Joined, ParamFacts, Related, Returns, ToolFacts};
pub use phrases::mentions;

use phrases::{capped, format_words, listed, lowercase_first, plural_type, range_sentences};

use super::behaviours::{Bound, NewParam};
use super::{Presence, Rng};

/// What a rule says about a tool besides its facts.
#[derive(Clone, Copy)]
pub enum Note<'a> {
    /// The tool is an alias of `of`, registered under a name ending in `suffix`.
    Alias { of: &'a str, suffix: &'a str },
    /// The tool is also available as `to`.
    Pointer { to: &'a str },
    /// A batch form of the described tool was added as `to`.
    BatchPointer { to: &'a str },
    /// The tool takes one `noun` of the list `of` takes in `param`: its fields (`key` None) or
    /// itself as `key`.
    Single {
        of: &'a str,
        param: &'a str,
        noun: &'a str,
        key: Option<&'a str>,
    },
    /// The tool takes the arguments `of` takes and `param`, and answers `of`'s answer with
    /// only the lines that contain `param`.
    Search { of: &'a str, param: &'a str },
    /// A search form of the described tool was added as `to`.
    SearchPointer { to: &'a str },
    /// A single form of the described tool was added as `to`, for one `noun`.
    SinglePointer { to: &'a str, noun: &'a str },
    /// The tool was called `old` before.
    Formerly { old: &'a str },
    /// A parameter the rules added, with the code that makes it act.
    NewParam(&'a NewParam),
    /// A parameter the change removed.
    RemovedParam(&'a str),
    /// The tool runs `of` on each argument set of its parameter `items` (at most `most`), in
    /// order, joins the answers, and stops at the first error.
    Batch {
        of: &'a str,
        items: &'a str,
        most: usize,
    },
}

/// Writes sentences, choosing among wordings with the seeded generator.
pub struct Writer<'r> {
    rng: &'r mut Rng,
}

impl<'r> Writer<'r> {
    pub fn new(rng: &'r mut Rng) -> Writer<'r> {
        Writer { rng }
    }

    fn pick(&mut self, options: &[String]) -> String {
        options[self.rng.below(options.len())].clone()
    }

    /// Up to `most` sentences of facts about the tool that its description does not state.
    pub fn tool_facts(&mut self, facts: &ToolFacts, most: usize) -> Vec<String> {
        // No sentence lists the schema back ("Required: `a`. Optional: `b`."): clients read
        // the schema itself, and no maintainer writes a description so.
        let mut said: Vec<String> = [self.returns_sentence(facts), self.related_sentence(facts)]
            .into_iter()
            .flatten()
            .collect();
        // A seeded order, so that tools and seeds lead with different facts.
        let mut out = Vec::new();
        while !said.is_empty() && out.len() < most {
            out.push(said.remove(self.rng.below(said.len())));
        }
        out
    }

    /// The sentence for a change a rule made.
    // Long: one arm per kind of note, each with its wordings side by side.
    pub fn note(&mut self, note: &Note) -> String {
        let options: Vec<String> = match *note {
            Note::Alias { of, suffix } => match suffix {
                "v1" => vec![
                    format!(
                        "Alias of `{of}` under a versioned name, added as an exact copy of it."
                    ),
                    format!("Versioned name for `{of}`, added with its parameters and results."),
                ],
                "compat" => vec![
                    format!("Compatibility alias of `{of}`, added as an exact copy of it."),
                    format!(
                        "Kept for compatibility: added as a copy of `{of}`, with its parameters and results."
                    ),
                ],
                _ => vec![
                    format!("Alias of `{of}`, added as an exact copy of it."),
                    format!("Another name for `{of}`, added with its parameters and results."),
                ],
            },
            Note::Batch { of, items, most } => vec![
                format!(
                    "Runs `{of}` on several inputs in one call. `{items}` takes 1 to {most} argument sets, each as `{of}` takes them; the answers come back one after another, in the same order. The first input that fails stops the batch, and its error is returned."
                ),
                format!(
                    "Batch form of `{of}`: pass up to {most} argument sets in `{items}` and get their results together, in order. An input that fails ends the batch with that input's error."
                ),
                format!(
                    "Calls `{of}` once for each entry of `{items}` (at most {most}) and returns all the results in order; if one call fails, the batch stops there and returns its error."
                ),
            ],
            Note::SearchPointer { to } => vec![
                format!("To get only the lines that contain a given text, use `{to}`."),
                format!("`{to}` returns just the lines of this result that contain a given text."),
            ],
            Note::Search { of, param } => vec![
                format!(
                    "Searches what `{of}` returns: takes the same arguments plus `{param}`, and keeps only the lines that contain it (case does not matter)."
                ),
                format!(
                    "Like `{of}`, but returns only the lines of its result that contain `{param}`, ignoring case."
                ),
                format!(
                    "Runs `{of}` and filters its output to the lines containing `{param}` (not case-sensitive)."
                ),
            ],
            Note::Single {
                of,
                param,
                noun,
                key: None,
            } => vec![
                format!(
                    "Like `{of}`, for a single {noun}: pass its fields directly rather than a list in `{param}`."
                ),
                format!(
                    "Takes one {noun}, with the same fields as an entry of `{param}` in `{of}`, and answers as `{of}` does for it."
                ),
                format!(
                    "Single-{noun} form of `{of}`: the arguments are one entry of its `{param}` list."
                ),
            ],
            Note::Single {
                of,
                param,
                noun,
                key: Some(key),
            } => vec![
                format!(
                    "Like `{of}`, for a single {noun}: pass `{key}` rather than a list in `{param}`."
                ),
                format!(
                    "Takes one `{key}` and answers as `{of}` does for a `{param}` list holding just it."
                ),
                format!(
                    "Single-{noun} form of `{of}`, taking one `{key}` instead of the `{param}` list."
                ),
            ],
            Note::SinglePointer { to, noun } => vec![
                format!("For a single {noun}, `{to}` takes it directly."),
                format!("`{to}` does the same for one {noun}."),
                format!("To pass just one {noun}, use `{to}`."),
            ],
            Note::BatchPointer { to } => vec![
                format!("To run it on several inputs in one call, use `{to}`."),
                format!("For several at once, `{to}` takes a list of argument sets."),
                format!("`{to}` does the same for a list of inputs."),
            ],
            Note::Pointer { to } => vec![
                format!("A copy of this tool was added as `{to}`."),
                format!("This tool was also made available as `{to}`."),
                format!("`{to}` was added as another name for this tool."),
            ],
            Note::Formerly { old } => vec![
                format!("Formerly named `{old}`."),
                format!("It replaces `{old}`."),
                format!("Previously called `{old}`."),
            ],
            Note::NewParam(p) => p.tool_sentences(),
            Note::RemovedParam(name) => vec![
                format!("`{name}` is no longer accepted."),
                format!("The `{name}` parameter was removed."),
                format!("It no longer takes `{name}`."),
            ],
        };
        self.pick(&options)
    }

    /// The description of a parameter the rules add. A required one keeps the first sentence
    /// only: the rest of each wording says what leaving it out does, which a required
    /// parameter cannot be.
    pub fn new_param_description(&mut self, p: &NewParam, presence: Presence) -> String {
        let options: Vec<String> = p
            .kind
            .descriptions
            .iter()
            .map(|s| match presence {
                Presence::Optional => s.to_string(),
                Presence::Required => first_sentence(s).to_string(),
            })
            .collect();
        self.pick(&options)
    }

    /// What a new bound on a parameter means, for its description: the limit alone (a
    /// sentence saying larger values are refused repeats what the schema states).
    pub fn bound(&mut self, bound: Bound) -> String {
        let limit = match bound {
            Bound::MaxLength(n) => vec![
                format!("At most {n} characters."),
                format!("Up to {n} characters."),
            ],
            Bound::Maximum(n) => vec![format!("At most {n}."), format!("No more than {n}.")],
            Bound::MaxItems(n) => vec![format!("At most {n} items."), format!("Up to {n} items.")],
        };
        self.pick(&limit)
    }

    /// Up to two sentences about a parameter that its description does not state: allowed
    /// values, default, bounds, format, items; when the schema says nothing else and the
    /// parameter has a description, whether it is required.
    pub fn param_facts(&mut self, p: &ParamFacts) -> Vec<String> {
        let said = p.description.as_deref().unwrap_or("");
        let s = &p.shape;
        let mut out: Vec<Vec<String>> = Vec::new();
        if !s.values.is_empty()
            && s.values.len() <= 8
            && !s.values.iter().all(|v| mentions(said, v))
        {
            let or = listed(&s.values, "or");
            let and = listed(&s.values, "and");
            out.push(vec![
                format!("One of {or}."),
                format!("Accepted values: {and}."),
                format!("Must be {or}."),
            ]);
        }
        if let Some(d) = &s.default
            && !mentions(said, d)
            && !said.to_lowercase().contains("default")
        {
            out.push(vec![
                format!("Defaults to `{d}`."),
                format!("Default: `{d}`."),
                format!("When left out, `{d}` is used."),
            ]);
        }
        if let Some(range) = range_sentences(p)
            && !s.min.iter().chain(&s.max).all(|n| mentions(said, n))
        {
            out.push(range);
        }
        if let Some(f) = s.format.as_deref().and_then(format_words)
            && !said.to_lowercase().contains(f.1)
        {
            out.push(vec![f.0.to_string()]);
        }
        if let Some(items) = &s.items
            && let Some(plural) = plural_type(items)
            && !said.to_lowercase().contains(plural)
        {
            out.push(vec![
                format!("A list of {plural}."),
                format!("An array of {plural}."),
            ]);
        }
        if !s.keys.is_empty() && s.keys.len() <= 8 && !s.keys.iter().all(|k| mentions(said, k)) {
            let keys = listed(&s.keys, "and");
            out.push(if s.items.is_some() {
                vec![
                    format!("Each item has {keys}."),
                    format!("Its items hold {keys}."),
                ]
            } else {
                vec![
                    format!("An object with {keys}."),
                    format!("It holds {keys}."),
                ]
            });
        }
        if out.is_empty() && !said.is_empty() && !says_presence(said) {
            out.push(if p.required {
                vec!["Required.".into(), "It must be given.".into()]
            } else {
                vec!["Optional.".into(), "It can be left out.".into()]
            });
        }
        out.truncate(2);
        out.iter().map(|o| self.pick(o)).collect()
    }

    fn returns_sentence(&mut self, facts: &ToolFacts) -> Option<String> {
        let r = &facts.returns;
        let said = facts.description.to_lowercase();
        let mut options: Vec<Vec<String>> = Vec::new();
        if let Some(keys) = &r.json
            && !said.contains("json")
        {
            options.push(if keys.is_empty() {
                vec![
                    "The result is JSON text.".into(),
                    "It answers with JSON text.".into(),
                ]
            } else {
                let keys = listed(&capped(keys), "and");
                vec![
                    format!("The result is JSON text with {keys}."),
                    format!("It answers with a JSON object holding {keys}."),
                    format!("Its text result is JSON with the fields {keys}."),
                ]
            });
        }
        if !r.structured.is_empty() && !r.structured.iter().all(|k| mentions(&facts.description, k))
        {
            let keys = listed(&capped(&r.structured), "and");
            options.push(vec![
                format!("Its structured result holds {keys}."),
                format!("The structured content it returns has {keys}."),
            ]);
        }
        if r.image && !said.contains("image") {
            options.push(vec![
                "Its result can include an image.".into(),
                "It can answer with an image.".into(),
            ]);
        }
        if r.audio && !said.contains("audio") {
            options.push(vec!["Its result can include audio.".into()]);
        }
        match r.joined {
            Some(Joined::Lines) if !said.contains("per line") && !said.contains("one line") => {
                options.push(vec![
                    "The result text has one entry per line.".into(),
                    "It answers with one entry per line.".into(),
                ])
            }
            Some(Joined::Commas) if !said.contains("comma") => options.push(vec![
                "The result is a comma-separated list.".into(),
                "It answers with a comma-separated list.".into(),
            ]),
            _ => {}
        }
        if options.is_empty() {
            return None;
        }
        let at = self.rng.below(options.len());
        let chosen = options.swap_remove(at);
        Some(self.pick(&chosen))
    }

    fn related_sentence(&mut self, facts: &ToolFacts) -> Option<String> {
        let r = facts
            .related
            .iter()
            .find(|r| !facts.description.contains(&r.name))?;
        let lower = lowercase_first(&r.summary);
        Some(self.pick(&[
            format!("See also `{}` ({lower}).", r.name),
            format!("A related tool is `{}` ({lower}).", r.name),
        ]))
    }
}

/// `text` up to the end of its first sentence (the whole text when it is one sentence).
fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text,
    }
}

/// Whether a parameter's description already says whether it may be left out ("optional",
/// "Leave it out for ...", "Without it, ..."): an "It can be left out." after "Leave it out to
/// keep the layout as it is." said it twice.
fn says_presence(description: &str) -> bool {
    let said = description.to_lowercase();
    [
        "optional",
        "required",
        "must be given",
        "leave it out",
        "left out",
        "without it",
        "omit",
    ]
    .iter()
    .any(|w| said.contains(w))
}

#[cfg(test)]
#[path = "prose_tests.rs"]
mod tests;
