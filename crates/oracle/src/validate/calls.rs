//! The previous version's calls made fit for the new schema: values of a changed type, newly
//! required parameters, and the previous defaults of parameters whose default changed.

use serde_json::{Map, Value};

use super::{VersionChange, args, arguments_for};
use mcpevol_core::listed::ListedTool;
use mcpevol_core::schema::ChangeKind;

impl VersionChange<'_> {
    /// The previous call of `tool` made valid for its new schema: each parameter whose type
    /// changed sent with a value of its new type, each newly required one given a value, and
    /// parameters the schema no longer has left out.
    pub(super) fn new_arguments(
        &self,
        tool: &str,
        before: &Map<String, Value>,
    ) -> Map<String, Value> {
        let schema = self
            .tool(tool)
            .map(ListedTool::input_schema)
            .unwrap_or(&Value::Null);
        let props = schema["properties"].as_object();
        let mut out: Map<String, Value> = before
            .iter()
            .filter(|(k, _)| props.is_some_and(|p| p.contains_key(*k)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in arguments_for(schema) {
            out.entry(k).or_insert(v);
        }
        for c in self.changes_of(tool) {
            let Some(param) = c.param() else { continue };
            if c.kind() == ChangeKind::ParamTypeChanged {
                out.insert(
                    param.to_string(),
                    args::value_for(&schema["properties"][param], param),
                );
            }
        }
        out
    }

    /// The previous call of `tool` with the previous default of each parameter whose default
    /// changed sent explicitly where the call left it out, so that it still asks for what it
    /// got before (the new default is exercised by its own check).
    pub(super) fn with_old_defaults(
        &self,
        tool: &str,
        before: &Map<String, Value>,
    ) -> Map<String, Value> {
        let mut out = before.clone();
        let old = self.previous.iter().find(|t| t.is_named(tool));
        for c in self.changes_of(tool) {
            if c.kind() != ChangeKind::ParamDefaultChanged {
                continue;
            }
            let Some(param) = c.param() else { continue };
            let default = old.and_then(|t| t.property(param).get("default"));
            if let Some(d) = default
                && !out.contains_key(param)
            {
                out.insert(param.to_string(), d.clone());
            }
        }
        out
    }

    /// A change after which the previous call is no longer valid as it was.
    pub(super) fn needs_new_arguments(&self, tool: &str) -> bool {
        self.changes_of(tool).any(|c| {
            matches!(c.kind(), ChangeKind::ParamTypeChanged)
                || (c.kind() == ChangeKind::ParamAdded && c.required() == Some(true))
                || (c.kind() == ChangeKind::ParamRequiredChanged && c.required() == Some(true))
        })
    }
}
