//! Where a tool of the original went, from the version records: renamed (its new name is in
//! the round's `schema_changes`), removed with a successor the record names (a removed tool
//! and one added by the same round, as a replacement records it; or the one other existing
//! tool the round targets, which takes over, as a removal records it), or removed for good.

use crate::schema::ChangeKind;
use crate::version_record::RoundRecord;

/// A tool's fate up to a version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fate {
    /// The tool that does its job at that version (itself, when nothing happened to it);
    /// None once it was removed with nothing named to take over.
    pub now: Option<String>,
    /// What happened, in order: "renamed to `x` in v1".
    pub steps: Vec<String>,
}

/// Follows `tool` through `records` (the rounds after the original, oldest first).
pub fn follow<'a>(records: impl IntoIterator<Item = &'a RoundRecord>, tool: &str) -> Fate {
    let mut now = tool.to_string();
    let mut steps = Vec::new();
    for record in records {
        let change = record.schema_changes.iter().find(|c| {
            c.tool == now && matches!(c.kind(), ChangeKind::ToolRenamed | ChangeKind::ToolRemoved)
        });
        let Some(change) = change else {
            continue;
        };
        match (change.renamed_to(), successor(record, &now)) {
            (Some(new), _) => {
                steps.push(format!("renamed to `{new}` in {}", record.version));
                now = new.to_string();
            }
            (None, Some(next)) => {
                steps.push(format!(
                    "removed in {}, whose record names `{next}` to take over",
                    record.version
                ));
                now = next;
            }
            (None, None) => {
                steps.push(format!("removed in {}", record.version));
                return Fate { now: None, steps };
            }
        }
    }
    Fate {
        now: Some(now),
        steps,
    }
}

/// The tool `record` names to take over from `removed`: the one tool it added, or else the
/// one other tool it targets that it did not remove too.
fn successor(record: &RoundRecord, removed: &str) -> Option<String> {
    let gone = |name: &str| {
        record.schema_changes.iter().any(|c| {
            c.tool == name && matches!(c.kind(), ChangeKind::ToolRemoved | ChangeKind::ToolRenamed)
        })
    };
    let added: Vec<&String> = record
        .added
        .iter()
        .filter(|a| {
            record
                .schema_changes
                .iter()
                .any(|c| c.kind() == ChangeKind::ToolAdded && c.tool == **a)
        })
        .collect();
    if let [one] = added.as_slice() {
        return Some((*one).clone());
    }
    let others: Vec<&String> = record
        .targets
        .iter()
        .filter(|t| t.as_str() != removed && !gone(t))
        .collect();
    match others.as_slice() {
        [one] if added.is_empty() => Some((*one).clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Change, SchemaChange};

    fn record(
        version: &str,
        targets: &[&str],
        added: &[&str],
        changes: Vec<SchemaChange>,
    ) -> RoundRecord {
        RoundRecord {
            version: crate::workspace::VersionTag::parse(version).unwrap(),
            targets: targets.iter().map(|s| s.to_string()).collect(),
            added: added.iter().map(|s| s.to_string()).collect(),
            schema_changes: changes,
            ..RoundRecord::default()
        }
    }

    fn renamed(from: &str, to: &str) -> SchemaChange {
        SchemaChange::of(from, Change::ToolRenamed { to: to.into() })
    }

    fn removed(tool: &str) -> SchemaChange {
        SchemaChange::of(tool, Change::ToolRemoved)
    }

    fn added(tool: &str) -> SchemaChange {
        SchemaChange::of(tool, Change::ToolAdded)
    }

    #[test]
    fn a_renamed_tool_is_followed_through_later_renames() {
        let rs = [
            record("v1", &["a"], &["a_v2"], vec![renamed("a", "a_v2")]),
            record("v2", &["b"], &[], vec![removed("b")]),
            record("v3", &["a_v2"], &["a_v3"], vec![renamed("a_v2", "a_v3")]),
        ];
        let fate = follow(&rs, "a");
        assert_eq!(fate.now.as_deref(), Some("a_v3"));
        assert_eq!(
            fate.steps,
            ["renamed to `a_v2` in v1", "renamed to `a_v3` in v3"]
        );
        assert_eq!(follow(&rs[..1], "b").now.as_deref(), Some("b"));
    }

    #[test]
    fn a_removed_tool_has_a_successor_only_where_its_record_names_one() {
        let replaced = record(
            "v1",
            &["a"],
            &["fetch_a"],
            vec![removed("a"), added("fetch_a")],
        );
        assert_eq!(follow([&replaced], "a").now.as_deref(), Some("fetch_a"));
        let taken_over = record("v1", &["a", "b"], &[], vec![removed("a")]);
        let fate = follow([&taken_over], "a");
        assert_eq!(fate.now.as_deref(), Some("b"));
        assert!(fate.steps[0].contains("names `b`"), "{fate:?}");
        let plain = record("v1", &["a"], &[], vec![removed("a")]);
        assert_eq!(
            follow([&plain], "a"),
            Fate {
                now: None,
                steps: vec!["removed in v1".into()]
            }
        );
    }

    #[test]
    fn a_successor_is_followed_on_and_can_itself_be_removed() {
        let rs = [
            record("v1", &["a", "b"], &[], vec![removed("a")]),
            record("v2", &["b"], &["b_v2"], vec![renamed("b", "b_v2")]),
            record("v3", &["b_v2"], &[], vec![removed("b_v2")]),
        ];
        assert_eq!(follow(&rs[..2], "a").now.as_deref(), Some("b_v2"));
        assert_eq!(follow(&rs, "a").now, None);
    }
}
