//! What a model's own test case proves: only the change it exercises, only where the previous
//! version answered its call otherwise (the evidence table of `validate::proof`, for cases).

use crate::mutate::reply::Expect;
use crate::version_record::GeneratedResult;
use mcpevol_core::schema::SchemaChange;
use mcpevol_oracle::server::session::CallStatus;
use mcpevol_oracle::validate;

/// Whether a model's case proves `change`: it passed, the previous version answered its call
/// otherwise, and it exercises exactly that change. A case expecting an error proves only a
/// removal or a refusal (a parameter now required, a bound) of a call the previous version
/// answered; one expecting success proves a new tool or name, or a parameter it sets.
pub fn proves(result: &GeneratedResult, change: &SchemaChange) -> bool {
    use mcpevol_core::schema::ChangeKind::*;
    let case = &result.test;
    if result.verdict != validate::Verdict::Passed || !result.differs {
        return false;
    }
    let answered_before = result.previous == Some(CallStatus::Ok);
    let sets = change
        .param()
        .is_some_and(|p| case.arguments.contains_key(p));
    let on_tool = change.tool == case.tool;
    match case.expect {
        Expect::Error => {
            answered_before
                && on_tool
                && match change.kind() {
                    ToolRemoved => true,
                    ParamRequiredChanged | ParamAdded => change.required() == Some(true) && !sets,
                    ParamConstraintChanged => sets,
                    _ => false,
                }
        }
        Expect::Success => match change.kind() {
            ToolAdded => on_tool,
            ToolRenamed => change.renamed_to() == Some(case.tool.as_str()),
            ParamAdded | ParamConstraintChanged | ParamTypeChanged => on_tool && sets,
            ParamRequiredChanged => on_tool && change.required() == Some(false) && !sets,
            ParamDefaultChanged => on_tool && !sets,
            _ => false,
        },
    }
}
