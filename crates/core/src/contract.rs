//! Contracts: the schema change one round of an operator may make, written as data in the
//! operator's file and checked against the diff of the live tool lists, so that an edit which
//! does something else than its operator promises is caught however it was produced.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::schema::{ChangeKind, SchemaChange};

/// The `[contract]` table of an operator file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// Every change must be of one of these kinds; omitted, any kind is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<ChangeKind>>,
    /// Each listed kind must occur within its bounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require: Vec<Count>,
    /// Alternatives: at least one group must hold in full. This is how "a rename, or a removal
    /// together with an addition" is said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require_any: Vec<Vec<Count>>,
    /// How many distinct tools the changes may touch (a rename touches its old name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Bounds>,
    /// Added parameters must all be optional, or all required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_params: Option<AddedParams>,
    /// The touched tools must be among the round's targets; added tools are exempt, as a new
    /// tool cannot have been chosen as a target before it existed.
    #[serde(default = "yes")]
    pub targets_only: bool,
}

fn yes() -> bool {
    true
}

impl Default for Contract {
    fn default() -> Contract {
        Contract {
            allow: None,
            require: Vec::new(),
            require_any: Vec::new(),
            tools: None,
            added_params: None,
            targets_only: true,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Count {
    pub kind: ChangeKind,
    #[serde(default = "one")]
    pub min: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<usize>,
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    #[serde(default)]
    pub min: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<usize>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AddedParams {
    Optional,
    Required,
}

impl Bounds {
    fn holds(&self, n: usize) -> bool {
        n >= self.min && self.max.is_none_or(|m| n <= m)
    }
}

impl Count {
    fn bounds(&self) -> Bounds {
        Bounds {
            min: self.min,
            max: self.max,
        }
    }

    fn holds(&self, changes: &[SchemaChange]) -> bool {
        self.bounds().holds(of_kind(changes, self.kind).count())
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", words(self.bounds()), self.kind)
    }
}

/// "exactly 1", "1 to 3", "at least 1", "at most 2".
fn words(b: Bounds) -> String {
    match (b.min, b.max) {
        (min, Some(max)) if min == max => format!("exactly {min}"),
        (0, Some(max)) => format!("at most {max}"),
        (min, Some(max)) => format!("{min} to {max}"),
        (min, None) => format!("at least {min}"),
    }
}

fn of_kind(changes: &[SchemaChange], kind: ChangeKind) -> impl Iterator<Item = &SchemaChange> {
    changes.iter().filter(move |c| c.kind() == kind)
}

fn named(c: &SchemaChange) -> String {
    format!("tool `{}`: {}", c.tool, c.describe())
}

fn ticked<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let list: Vec<String> = names.into_iter().map(|n| format!("`{n}`")).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

fn any_group(groups: &[Vec<Count>]) -> String {
    let groups: Vec<String> = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(Count::to_string)
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .collect();
    groups.join("; or ")
}

impl Contract {
    /// Whether the contract can only hold if something changed.
    fn needs_a_change(&self) -> bool {
        self.require.iter().any(|c| c.min > 0)
            || (!self.require_any.is_empty()
                && self.require_any.iter().all(|g| g.iter().any(|c| c.min > 0)))
            || self.tools.is_some_and(|t| t.min > 0)
    }

    fn what_it_needs(&self) -> String {
        let mut parts: Vec<String> = self
            .require
            .iter()
            .filter(|c| c.min > 0)
            .map(Count::to_string)
            .collect();
        if !self.require_any.is_empty() {
            parts.push(format!("one of: {}", any_group(&self.require_any)));
        }
        if parts.is_empty() {
            "some change".into()
        } else {
            parts.join(" and ")
        }
    }
}

/// Checks one round's schema changes against a contract; every violation is one sentence.
pub fn verify(
    contract: &Contract,
    changes: &[SchemaChange],
    targets: &[String],
) -> Result<(), Vec<String>> {
    if changes.is_empty() {
        return if contract.needs_a_change() {
            Err(vec![format!(
                "no change at all, but this operator requires {}",
                contract.what_it_needs()
            )])
        } else {
            Ok(())
        };
    }
    let mut why = Vec::new();
    why.extend(not_allowed(contract, changes));
    why.extend(counts_off(contract, changes));
    why.extend(no_group_holds(contract, changes));
    why.extend(tools_off(contract, changes));
    why.extend(added_params_off(contract, changes));
    if contract.targets_only {
        why.extend(off_target(changes, targets));
    }
    if why.is_empty() { Ok(()) } else { Err(why) }
}

/// Changes of a kind the contract does not allow.
fn not_allowed(contract: &Contract, changes: &[SchemaChange]) -> Vec<String> {
    let Some(allow) = &contract.allow else {
        return Vec::new();
    };
    let allowed = allow
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    changes
        .iter()
        .filter(|c| !allow.contains(&c.kind()))
        .map(|c| {
            format!(
                "{} is not allowed by this operator (allowed: {allowed})",
                named(c)
            )
        })
        .collect()
}

/// Required kinds found too few or too many times.
fn counts_off(contract: &Contract, changes: &[SchemaChange]) -> Vec<String> {
    let mut why = Vec::new();
    for count in &contract.require {
        let found: Vec<&SchemaChange> = of_kind(changes, count.kind).collect();
        if !count.bounds().holds(found.len()) {
            let mut s = format!("expected {count}, found {}", found.len());
            if !found.is_empty() {
                let list: Vec<String> = found.iter().map(|c| named(c)).collect();
                s.push_str(&format!(" ({})", list.join("; ")));
            }
            why.push(s);
        }
    }
    why
}

/// None of the alternative groups holds in full.
fn no_group_holds(contract: &Contract, changes: &[SchemaChange]) -> Option<String> {
    let groups = &contract.require_any;
    if groups.is_empty() || groups.iter().any(|g| g.iter().all(|c| c.holds(changes))) {
        return None;
    }
    let kinds: BTreeSet<ChangeKind> = groups.iter().flatten().map(|c| c.kind).collect();
    let found: Vec<String> = kinds
        .iter()
        .map(|k| format!("{} {k}", of_kind(changes, *k).count()))
        .collect();
    Some(format!(
        "expected one of: {}; found {}",
        any_group(groups),
        found.join(", ")
    ))
}

fn touched(changes: &[SchemaChange]) -> BTreeSet<&str> {
    changes.iter().map(|c| c.tool.as_str()).collect()
}

/// The changes touch more or fewer tools than the operator does.
fn tools_off(contract: &Contract, changes: &[SchemaChange]) -> Option<String> {
    let tools = contract.tools?;
    let touched = touched(changes);
    let n = touched.len();
    (!tools.holds(n)).then(|| {
        format!(
            "the changes touch {n} tool{} ({}), but this operator touches {} tool{}",
            if n == 1 { "" } else { "s" },
            ticked(touched.iter().copied()),
            words(tools),
            if tools.max == Some(1) { "" } else { "s" },
        )
    })
}

/// Added parameters that are optional where the operator adds required ones, or the reverse.
fn added_params_off(contract: &Contract, changes: &[SchemaChange]) -> Vec<String> {
    let Some(rule) = contract.added_params else {
        return Vec::new();
    };
    let want = rule == AddedParams::Required;
    let (is, only) = if want {
        ("optional", "required")
    } else {
        ("required", "optional")
    };
    of_kind(changes, ChangeKind::ParamAdded)
        .filter(|c| c.required().is_some_and(|r| r != want))
        .map(|c| {
            format!(
                "tool `{}`: added parameter `{}` is {is}, but this operator adds only {only} parameters",
                c.tool,
                c.param().unwrap_or("?"),
            )
        })
        .collect()
}

/// Tools the changes touch that are not targets (added tools are exempt: a new tool cannot
/// have been chosen before it existed).
fn off_target(changes: &[SchemaChange], targets: &[String]) -> Vec<String> {
    let mut why = Vec::new();
    for tool in touched(changes)
        .into_iter()
        .filter(|t| !targets.iter().any(|x| x == *t))
    {
        let off: Vec<String> = changes
            .iter()
            .filter(|c| c.tool == tool && c.kind() != ChangeKind::ToolAdded)
            .map(SchemaChange::describe)
            .collect();
        if !off.is_empty() {
            why.push(format!(
                "tool `{tool}` is not a target of this round (targets: {}), yet it has {}",
                ticked(targets.iter().map(String::as_str)),
                off.join(", "),
            ));
        }
    }
    why
}

#[cfg(test)]
#[path = "contract_tests.rs"]
mod tests;
