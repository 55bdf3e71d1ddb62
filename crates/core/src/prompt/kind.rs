//! The kinds of prompt template, and the values each kind's caller supplies.

/// The kinds of template, each filled by its caller with a fixed set of values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// An operator's `## Prompt`: the request for SEARCH/REPLACE blocks.
    Mutation,
    /// `_select.md`: choose an operator and targets.
    Select,
    /// `_feedback.md`: what went wrong with the last answer.
    Feedback,
    /// `_tests.md`: test cases for the changed tools.
    Tests,
    /// `_release.md`: plan a release of several changes (`--shape release`).
    Release,
}

impl PromptKind {
    pub const SHARED: [PromptKind; 4] = [
        PromptKind::Select,
        PromptKind::Feedback,
        PromptKind::Tests,
        PromptKind::Release,
    ];

    /// The values the caller always supplies for this kind; a template may use no others, so
    /// a file that passes `operators check` cannot fail to render for want of a value.
    pub fn supplied(self) -> &'static [&'static str] {
        match self {
            PromptKind::Mutation => &[
                "server_name",
                "tool_list",
                "targets",
                "snippets",
                "previous_rounds",
                "operator_id",
                "operator_name",
                "contract",
                "examples",
                "function",
                "instructions",
            ],
            PromptKind::Select => &["server_name", "tool_list", "previous_rounds", "operators"],
            // Feedback also answers an unusable operator choice, when there is no operator yet.
            PromptKind::Feedback => &["error"],
            PromptKind::Tests => &["server_name", "tool", "schema", "snippets"],
            PromptKind::Release => &[
                "server_name",
                "tool_list",
                "previous_rounds",
                "operators",
                "release_size",
                "target_mix",
            ],
        }
    }

    /// The placeholder without which the template is pointless.
    pub fn needs(self) -> Option<&'static str> {
        match self {
            PromptKind::Mutation => None,
            PromptKind::Select => Some("operators"),
            PromptKind::Feedback => Some("error"),
            PromptKind::Tests => Some("schema"),
            PromptKind::Release => Some("operators"),
        }
    }

    /// The shared prompt file of this kind (`_select.md`); operators' prompts have none.
    pub fn file_name(self) -> Option<&'static str> {
        match self {
            PromptKind::Mutation => None,
            PromptKind::Select => Some("_select.md"),
            PromptKind::Feedback => Some("_feedback.md"),
            PromptKind::Tests => Some("_tests.md"),
            PromptKind::Release => Some("_release.md"),
        }
    }

    pub fn from_file_name(name: &str) -> Option<PromptKind> {
        PromptKind::SHARED
            .into_iter()
            .find(|k| k.file_name() == Some(name))
    }
}
