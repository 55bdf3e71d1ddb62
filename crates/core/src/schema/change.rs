//! One schema change between two versions: what changed (`Change`, with the data that kind of
//! change has: the parameter, whether it is required, the new name), on which tool, and how a
//! client sees it (breaking, pattern, words). Records keep the flat form they always had
//! (`kind`, `tool`, `param`, `required`, `renamed_to`), read and written through `Flat`.

use serde::{Deserialize, Serialize};

use super::{ChangeKind, Pattern};

/// What changed, with the data each kind of change has and no other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    ToolAdded,
    ToolRemoved,
    /// The tool answers under a new name with the same schema.
    ToolRenamed {
        to: String,
    },
    ToolDescriptionChanged,
    ToolTitleChanged,
    ToolAnnotationsChanged,
    ToolOutputSchemaChanged,
    ToolMetaChanged,
    ToolDefinitionChanged,
    ToolListedTwice,
    ParamAdded {
        param: String,
        required: bool,
    },
    /// `required`: whether the parameter was required.
    ParamRemoved {
        param: String,
        required: bool,
    },
    /// `required`: whether it is required now.
    ParamRequiredChanged {
        param: String,
        required: bool,
    },
    ParamDescriptionChanged {
        param: String,
    },
    ParamConstraintChanged {
        param: String,
    },
    ParamTypeChanged {
        param: String,
    },
    ParamDefaultChanged {
        param: String,
    },
}

/// A record of a change that lacks a field its kind needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a {kind} change without its `{field}`")]
pub struct MissingField {
    pub kind: ChangeKind,
    pub field: &'static str,
}

impl Change {
    pub fn kind(&self) -> ChangeKind {
        match self {
            Change::ToolAdded => ChangeKind::ToolAdded,
            Change::ToolRemoved => ChangeKind::ToolRemoved,
            Change::ToolRenamed { .. } => ChangeKind::ToolRenamed,
            Change::ToolDescriptionChanged => ChangeKind::ToolDescriptionChanged,
            Change::ToolTitleChanged => ChangeKind::ToolTitleChanged,
            Change::ToolAnnotationsChanged => ChangeKind::ToolAnnotationsChanged,
            Change::ToolOutputSchemaChanged => ChangeKind::ToolOutputSchemaChanged,
            Change::ToolMetaChanged => ChangeKind::ToolMetaChanged,
            Change::ToolDefinitionChanged => ChangeKind::ToolDefinitionChanged,
            Change::ToolListedTwice => ChangeKind::ToolListedTwice,
            Change::ParamAdded { .. } => ChangeKind::ParamAdded,
            Change::ParamRemoved { .. } => ChangeKind::ParamRemoved,
            Change::ParamRequiredChanged { .. } => ChangeKind::ParamRequiredChanged,
            Change::ParamDescriptionChanged { .. } => ChangeKind::ParamDescriptionChanged,
            Change::ParamConstraintChanged { .. } => ChangeKind::ParamConstraintChanged,
            Change::ParamTypeChanged { .. } => ChangeKind::ParamTypeChanged,
            Change::ParamDefaultChanged { .. } => ChangeKind::ParamDefaultChanged,
        }
    }

    /// The parameter a parameter-level change is about.
    pub fn param(&self) -> Option<&str> {
        match self {
            Change::ParamAdded { param, .. }
            | Change::ParamRemoved { param, .. }
            | Change::ParamRequiredChanged { param, .. }
            | Change::ParamDescriptionChanged { param }
            | Change::ParamConstraintChanged { param }
            | Change::ParamTypeChanged { param }
            | Change::ParamDefaultChanged { param } => Some(param),
            _ => None,
        }
    }

    /// Added or removed: whether that parameter is (was) required; required-changed: whether it
    /// is required now.
    pub fn required(&self) -> Option<bool> {
        match self {
            Change::ParamAdded { required, .. }
            | Change::ParamRemoved { required, .. }
            | Change::ParamRequiredChanged { required, .. } => Some(*required),
            _ => None,
        }
    }

    /// A renamed tool's new name.
    pub fn renamed_to(&self) -> Option<&str> {
        match self {
            Change::ToolRenamed { to } => Some(to),
            _ => None,
        }
    }

    /// The change of a kind from the fields records keep, or the field its kind needs and
    /// they lack.
    pub fn from_fields(
        kind: ChangeKind,
        param: Option<String>,
        required: Option<bool>,
        renamed_to: Option<String>,
    ) -> Result<Change, MissingField> {
        let missing = |field: &'static str| MissingField { kind, field };
        // Each arm takes the fields its kind needs, once.
        let param = || param.ok_or_else(|| missing("param"));
        let required = || required.ok_or_else(|| missing("required"));
        Ok(match kind {
            ChangeKind::ToolAdded => Change::ToolAdded,
            ChangeKind::ToolRemoved => Change::ToolRemoved,
            ChangeKind::ToolRenamed => Change::ToolRenamed {
                to: renamed_to.ok_or_else(|| missing("renamed_to"))?,
            },
            ChangeKind::ToolDescriptionChanged => Change::ToolDescriptionChanged,
            ChangeKind::ToolTitleChanged => Change::ToolTitleChanged,
            ChangeKind::ToolAnnotationsChanged => Change::ToolAnnotationsChanged,
            ChangeKind::ToolOutputSchemaChanged => Change::ToolOutputSchemaChanged,
            ChangeKind::ToolMetaChanged => Change::ToolMetaChanged,
            ChangeKind::ToolDefinitionChanged => Change::ToolDefinitionChanged,
            ChangeKind::ToolListedTwice => Change::ToolListedTwice,
            ChangeKind::ParamAdded => Change::ParamAdded {
                param: param()?,
                required: required()?,
            },
            ChangeKind::ParamRemoved => Change::ParamRemoved {
                param: param()?,
                required: required()?,
            },
            ChangeKind::ParamRequiredChanged => Change::ParamRequiredChanged {
                param: param()?,
                required: required()?,
            },
            ChangeKind::ParamDescriptionChanged => {
                Change::ParamDescriptionChanged { param: param()? }
            }
            ChangeKind::ParamConstraintChanged => {
                Change::ParamConstraintChanged { param: param()? }
            }
            ChangeKind::ParamTypeChanged => Change::ParamTypeChanged { param: param()? },
            ChangeKind::ParamDefaultChanged => Change::ParamDefaultChanged { param: param()? },
        })
    }
}

/// A schema change of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "Flat", try_from = "Flat")]
pub struct SchemaChange {
    /// The tool's name (for a rename: the old name).
    pub tool: String,
    pub what: Change,
    pub breaking: bool,
    /// The single-change pattern of Table 10 (P4).
    pub pattern: Option<Pattern>,
    /// Words a person reads: "renamed to fetch_forecast", "now optional", "maxLength 100 -> 50".
    pub detail: Option<String>,
}

impl SchemaChange {
    /// A change of `tool` with no breaking flag, pattern or words (`diff` adds those).
    pub fn of(tool: &str, what: Change) -> SchemaChange {
        SchemaChange {
            tool: tool.to_string(),
            what,
            breaking: false,
            pattern: None,
            detail: None,
        }
    }

    pub fn kind(&self) -> ChangeKind {
        self.what.kind()
    }

    pub fn param(&self) -> Option<&str> {
        self.what.param()
    }

    pub fn required(&self) -> Option<bool> {
        self.what.required()
    }

    pub fn renamed_to(&self) -> Option<&str> {
        self.what.renamed_to()
    }

    /// "param-removed `city`", "tool-renamed (renamed to x)": the change without its tool.
    pub fn describe(&self) -> String {
        let mut s = self.kind().to_string();
        if let Some(p) = self.param() {
            s.push_str(&format!(" `{p}`"));
        }
        if let Some(d) = &self.detail {
            s.push_str(&format!(" ({d})"));
        }
        s
    }
}

/// The form records have always had: a kind and the fields some kinds use.
#[derive(Serialize, Deserialize)]
struct Flat {
    kind: ChangeKind,
    tool: String,
    param: Option<String>,
    breaking: bool,
    pattern: Option<Pattern>,
    detail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    required: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    renamed_to: Option<String>,
}

impl From<SchemaChange> for Flat {
    fn from(c: SchemaChange) -> Flat {
        Flat {
            kind: c.kind(),
            param: c.param().map(str::to_string),
            required: c.required(),
            renamed_to: c.renamed_to().map(str::to_string),
            tool: c.tool,
            breaking: c.breaking,
            pattern: c.pattern,
            detail: c.detail,
        }
    }
}

impl TryFrom<Flat> for SchemaChange {
    type Error = MissingField;

    fn try_from(f: Flat) -> Result<SchemaChange, MissingField> {
        Ok(SchemaChange {
            what: Change::from_fields(f.kind, f.param, f.required, f.renamed_to)?,
            tool: f.tool,
            breaking: f.breaking,
            pattern: f.pattern,
            detail: f.detail,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_written_in_the_flat_form_records_have_always_had() {
        let added = SchemaChange::of(
            "get_forecast",
            Change::ParamAdded {
                param: "days".into(),
                required: true,
            },
        );
        assert_eq!(
            serde_json::to_string(&added).unwrap(),
            r#"{"kind":"param-added","tool":"get_forecast","param":"days","breaking":false,"pattern":null,"detail":null,"required":true}"#
        );
        let renamed = SchemaChange::of("a", Change::ToolRenamed { to: "b".into() });
        assert_eq!(
            serde_json::to_string(&renamed).unwrap(),
            r#"{"kind":"tool-renamed","tool":"a","param":null,"breaking":false,"pattern":null,"detail":null,"renamed_to":"b"}"#
        );
    }

    #[test]
    fn every_kind_reads_back_as_the_change_it_was_written_from() {
        let p = || "x".to_string();
        let all = [
            Change::ToolAdded,
            Change::ToolRemoved,
            Change::ToolRenamed { to: "y".into() },
            Change::ToolDescriptionChanged,
            Change::ToolTitleChanged,
            Change::ToolAnnotationsChanged,
            Change::ToolOutputSchemaChanged,
            Change::ToolMetaChanged,
            Change::ToolDefinitionChanged,
            Change::ToolListedTwice,
            Change::ParamAdded {
                param: p(),
                required: false,
            },
            Change::ParamRemoved {
                param: p(),
                required: true,
            },
            Change::ParamRequiredChanged {
                param: p(),
                required: true,
            },
            Change::ParamDescriptionChanged { param: p() },
            Change::ParamConstraintChanged { param: p() },
            Change::ParamTypeChanged { param: p() },
            Change::ParamDefaultChanged { param: p() },
        ];
        for what in all {
            let change = SchemaChange {
                breaking: true,
                pattern: Some(Pattern::known(8)),
                detail: Some("words".into()),
                ..SchemaChange::of("t", what)
            };
            let text = serde_json::to_string(&change).unwrap();
            let back: SchemaChange = serde_json::from_str(&text).unwrap();
            assert_eq!(back, change, "{text}");
        }
    }

    #[test]
    fn a_record_without_the_field_its_kind_needs_is_refused_naming_it() {
        let no_required = r#"{"kind":"param-added","tool":"t","param":"x","breaking":false,"pattern":null,"detail":null}"#;
        let err = serde_json::from_str::<SchemaChange>(no_required).unwrap_err();
        assert!(
            err.to_string()
                .contains("param-added change without its `required`"),
            "{err}"
        );
        let no_name = r#"{"kind":"tool-renamed","tool":"t","param":null,"breaking":true,"pattern":null,"detail":null}"#;
        let err = serde_json::from_str::<SchemaChange>(no_name).unwrap_err();
        assert!(err.to_string().contains("`renamed_to`"), "{err}");
        let no_param = r#"{"kind":"param-type-changed","tool":"t","breaking":true,"pattern":null,"detail":null}"#;
        let err = serde_json::from_str::<SchemaChange>(no_param).unwrap_err();
        assert!(err.to_string().contains("`param`"), "{err}");
    }
}
