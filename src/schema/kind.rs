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
        }
    }
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
