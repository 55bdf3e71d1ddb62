//! The kinds of schema change, as JSON, TOML and messages name them (`param-added`).

use serde::{Deserialize, Serialize};

use ChangeKind::*;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    ToolAdded,
    ToolRemoved,
    ToolRenamed,
    ToolDescriptionChanged,
    ParamAdded,
    ParamRemoved,
    ParamDescriptionChanged,
    ParamConstraintChanged,
    ParamRequiredChanged,
    ParamTypeChanged,
    /// The value the server assumes without the parameter (`default`): not a constraint, as
    /// real releases were counted (`other` when a tool changes in nothing else).
    ParamDefaultChanged,
    /// The name a client shows for the tool (`title`, or `annotations.title`): display text,
    /// `other` as real releases were counted.
    ToolTitleChanged,
    /// A behaviour hint of `annotations` (`readOnlyHint`, `destructiveHint`, ...), `other`.
    ToolAnnotationsChanged,
    /// The schema of the tool's structured result (`outputSchema`), `other`.
    ToolOutputSchemaChanged,
    /// The tool's `_meta`, `other`.
    ToolMetaChanged,
    /// Any other field of the tool's definition, `other`.
    ToolDefinitionChanged,
    /// The tool is listed more than once where it was listed once: clients see one of them.
    ToolListedTwice,
}

impl ChangeKind {
    /// The name used in JSON, TOML and messages (`param-added`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolAdded => "tool-added",
            ToolRemoved => "tool-removed",
            ToolRenamed => "tool-renamed",
            ToolDescriptionChanged => "tool-description-changed",
            ParamAdded => "param-added",
            ParamRemoved => "param-removed",
            ParamDescriptionChanged => "param-description-changed",
            ParamConstraintChanged => "param-constraint-changed",
            ParamRequiredChanged => "param-required-changed",
            ParamTypeChanged => "param-type-changed",
            ParamDefaultChanged => "param-default-changed",
            ToolTitleChanged => "tool-title-changed",
            ToolAnnotationsChanged => "tool-annotations-changed",
            ToolOutputSchemaChanged => "tool-output-schema-changed",
            ToolMetaChanged => "tool-meta-changed",
            ToolDefinitionChanged => "tool-definition-changed",
            ToolListedTwice => "tool-listed-twice",
        }
    }

    /// Text and metadata a client reads, not what the tool takes: shown working by the tool
    /// answering exactly as before.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            ToolDescriptionChanged
                | ParamDescriptionChanged
                | ToolTitleChanged
                | ToolAnnotationsChanged
                | ToolOutputSchemaChanged
                | ToolMetaChanged
                | ToolDefinitionChanged
        )
    }
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
