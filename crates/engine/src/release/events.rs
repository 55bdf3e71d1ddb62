//! A version's schema changes counted the way real releases were counted
//! (`release-patterns.md`): each changed tool gets the one pattern whose atomic changes equal its
//! own, or is covered greedily by the largest patterns it contains; added, removed and replaced
//! tools are events of their own; P18 counts once per version on top. The realised mix of a run
//! is these events' shares.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::mix::{self, Label, Mix, Shares};
use mcpevol_core::schema::{ChangeKind, SchemaChange};

/// An atomic change of a tool present before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Atom {
    /// Tool description.
    Td,
    /// A parameter's description.
    Pd,
    /// Parameter added, optional / required.
    Pao,
    Par,
    /// Parameter removed, optional / required (as it was).
    Pro,
    Prr,
    /// A constraint or type.
    Pc,
    /// Promoted or demoted between optional and required.
    Pp,
    /// A default value changed: `other` when the tool changes in nothing else.
    Df,
    /// The tool's title changed: `other` likewise.
    Tl,
}

use Atom::*;

/// Patterns by their exact atom sets; the two-atom ones first, in table order, for the greedy
/// cover of sets that match none.
const PATTERNS: [(u8, &[Atom]); 13] = [
    (6, &[Td, Pao]),
    (7, &[Td, Pd]),
    (9, &[Pc, Pd]),
    (12, &[Pao, Pd]),
    (15, &[Pro, Pd]),
    (1, &[Td]),
    (3, &[Pd]),
    (4, &[Pao]),
    (8, &[Pc]),
    (10, &[Par]),
    (11, &[Pro]),
    (13, &[Pp]),
    (14, &[Prr]),
];

/// What one version did, counted as releases were.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VersionEvents {
    pub events: Vec<Label>,
    /// Tools added, removed, replaced or changed.
    pub touched: usize,
    /// Tools present before and after that changed.
    pub changed: usize,
    /// Of those, the ones with more than one kind of atomic change.
    pub composite: usize,
}

fn atom(c: &SchemaChange) -> Option<Atom> {
    Some(match c.kind() {
        ChangeKind::ToolDescriptionChanged => Td,
        ChangeKind::ParamDescriptionChanged => Pd,
        ChangeKind::ParamAdded if c.required() == Some(true) => Par,
        ChangeKind::ParamAdded => Pao,
        ChangeKind::ParamRemoved if c.required() == Some(true) => Prr,
        ChangeKind::ParamRemoved => Pro,
        ChangeKind::ParamConstraintChanged | ChangeKind::ParamTypeChanged => Pc,
        ChangeKind::ParamRequiredChanged => Pp,
        ChangeKind::ParamDefaultChanged => Df,
        ChangeKind::ToolTitleChanged
        | ChangeKind::ToolAnnotationsChanged
        | ChangeKind::ToolOutputSchemaChanged
        | ChangeKind::ToolMetaChanged
        | ChangeKind::ToolDefinitionChanged
        | ChangeKind::ToolListedTwice => Tl,
        ChangeKind::ToolAdded | ChangeKind::ToolRemoved | ChangeKind::ToolRenamed => return None,
    })
}

/// The events of one changed tool's atom set: its exact pattern, or a greedy cover; `other`
/// where only a default or the title changed.
fn cover(mut atoms: BTreeSet<Atom>) -> Vec<Label> {
    if !atoms.is_empty() && atoms.iter().all(|a| matches!(a, Df | Tl)) {
        return vec![Label::Other];
    }
    atoms.remove(&Df);
    atoms.remove(&Tl);
    if let Some((n, _)) = PATTERNS
        .iter()
        .find(|(_, set)| set.len() == atoms.len() && set.iter().all(|a| atoms.contains(a)))
    {
        return vec![Label::p(*n)];
    }
    let mut out = Vec::new();
    for (n, set) in PATTERNS {
        if set.iter().all(|a| atoms.contains(a)) {
            out.push(Label::p(n));
            for a in set {
                atoms.remove(a);
            }
        }
    }
    out
}

/// The events of one version's schema changes.
pub fn classify(changes: &[SchemaChange]) -> VersionEvents {
    let mut out = VersionEvents::default();
    let mut atoms: BTreeMap<&str, BTreeSet<Atom>> = BTreeMap::new();
    let replaced: BTreeSet<&str> = changes
        .iter()
        .filter(|c| c.kind() == ChangeKind::ToolRenamed)
        .flat_map(|c| [c.tool.as_str()].into_iter().chain(c.renamed_to()))
        .collect();
    let mut added = false;
    for c in changes {
        let label = match c.kind() {
            ChangeKind::ToolAdded => {
                added = true;
                Some(Label::p(2))
            }
            ChangeKind::ToolRemoved => Some(Label::p(17)),
            ChangeKind::ToolRenamed => Some(Label::p(5)),
            _ => None,
        };
        if let Some(label) = label {
            out.events.push(label);
            out.touched += 1;
        } else if !replaced.contains(c.tool.as_str())
            && let Some(a) = atom(c)
        {
            atoms.entry(&c.tool).or_default().insert(a);
        }
    }
    let described_other = atoms.values().any(|a| a.contains(&Td));
    for set in atoms.into_values() {
        out.touched += 1;
        out.changed += 1;
        if set.len() > 1 {
            out.composite += 1;
        }
        out.events.extend(cover(set));
    }
    if added && described_other {
        out.events.push(Label::p(18));
    }
    out
}

/// What a run realised against its target: the figures `log --json`, the report and the
/// release example show.
#[derive(Debug, Clone, Serialize)]
pub struct RunMix {
    /// Where the target came from (the shipped file or the user's), when a version recorded one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Shares>,
    pub realised: Shares,
    pub events: usize,
    /// Total-variation distance of realised from target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tv_distance: Option<f64>,
    /// The median number of tools a version touched (versions that touched any).
    pub median_tools_touched: f64,
    /// Of the versions that touched tools, the share that touched more than one.
    pub more_than_one_tool: f64,
    /// Of changed tools, the share with more than one kind of change.
    pub composite_share: f64,
}

impl RunMix {
    /// The figures of versions' events against `target` (None for runs that recorded none).
    pub fn of(versions: &[VersionEvents], target: Option<&Mix>) -> RunMix {
        let mut counts: BTreeMap<Label, usize> = BTreeMap::new();
        for e in versions.iter().flat_map(|v| &v.events) {
            *counts.entry(*e).or_default() += 1;
        }
        let realised = mix::shares(&counts);
        let mut touched: Vec<usize> = versions
            .iter()
            .map(|v| v.touched)
            .filter(|n| *n > 0)
            .collect();
        touched.sort_unstable();
        let changed: usize = versions.iter().map(|v| v.changed).sum();
        let composite: usize = versions.iter().map(|v| v.composite).sum();
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        RunMix {
            source: target.map(|t| t.source.clone()),
            tv_distance: target.map(|t| mix::tv_distance(&t.patterns, &realised)),
            target: target.map(|t| t.patterns.clone()),
            events: counts.values().sum(),
            realised,
            median_tools_touched: median(&touched),
            more_than_one_tool: ratio(touched.iter().filter(|n| **n > 1).count(), touched.len()),
            composite_share: ratio(composite, changed),
        }
    }
}

/// The median of sorted counts (0 for none).
pub fn median(sorted: &[usize]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2] as f64,
        n => (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ChangeKind::*;
    use mcpevol_core::schema::Change;

    fn change(kind: ChangeKind, tool: &str, required: Option<bool>) -> SchemaChange {
        // Tool-level kinds take no parameter: `from_fields` leaves "p" out of them.
        SchemaChange::of(
            tool,
            Change::from_fields(kind, Some("p".into()), required, None).unwrap(),
        )
    }

    #[test]
    fn each_changed_tool_gets_its_exact_pattern_or_a_greedy_cover() {
        let v = classify(&[
            change(ToolDescriptionChanged, "a", None),
            change(ParamAdded, "a", Some(false)),
            change(ParamDescriptionChanged, "b", None),
            change(ParamDescriptionChanged, "c", None),
            change(ParamAdded, "c", Some(false)),
            change(ToolDescriptionChanged, "c", None),
            change(ToolDescriptionChanged, "d", None),
            change(ParamConstraintChanged, "d", None),
        ]);
        let names: Vec<String> = v.events.iter().map(Label::to_string).collect();
        assert_eq!(names, ["P6", "P3", "P6", "P3", "P1", "P8"]);
        assert_eq!((v.touched, v.changed, v.composite), (4, 4, 3));
    }

    #[test]
    fn a_default_alone_is_other_and_beside_other_changes_counts_as_nothing_more() {
        let v = classify(&[
            change(ParamDefaultChanged, "a", None),
            change(ParamRequiredChanged, "b", Some(false)),
            change(ParamDefaultChanged, "b", None),
        ]);
        let names: Vec<String> = v.events.iter().map(Label::to_string).collect();
        assert_eq!(names, ["other", "P13"]);
    }

    #[test]
    fn a_title_alone_is_other_and_beside_a_description_counts_as_nothing_more() {
        let v = classify(&[
            change(ToolTitleChanged, "a", None),
            change(ToolTitleChanged, "b", None),
            change(ToolDescriptionChanged, "b", None),
        ]);
        let names: Vec<String> = v.events.iter().map(Label::to_string).collect();
        assert_eq!(names, ["other", "P1"]);
    }

    #[test]
    fn an_added_tool_beside_another_description_is_also_p18() {
        let v = classify(&[
            change(ToolAdded, "new", None),
            change(ToolDescriptionChanged, "old", None),
        ]);
        let names: Vec<String> = v.events.iter().map(Label::to_string).collect();
        assert_eq!(names, ["P2", "P1", "P18"]);
        assert_eq!((v.touched, v.changed, v.composite), (2, 1, 0));
    }

    #[test]
    fn a_run_is_measured_against_its_target() {
        let target = Mix::parse("[patterns]\nP1 = 1\nP2 = 1\n", "t", Some(Mix::shipped())).unwrap();
        let v = classify(&[change(ToolDescriptionChanged, "a", None)]);
        let run = RunMix::of(&[v.clone(), v], Some(&target));
        assert_eq!(run.events, 2);
        assert!((run.tv_distance.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(run.median_tools_touched, 1.0);
    }
}
