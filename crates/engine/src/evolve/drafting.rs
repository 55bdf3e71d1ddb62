//! What a release being drafted holds (its draws, the tools it touched, its changes and what
//! each was drafted for), and the events of the run's earlier versions that its draws answer to.

use std::time::Instant;

use super::clock::Step;
use super::proposer::Ask;
use super::served;
use super::{AttemptError, EvolveError};
use crate::mutate::{Proposal, Rng};
use crate::release::{
    self, Label,
    plan::{self, Class},
};
use crate::version_record::{self, Rejection, RoundRecord};
use crate::workspace::VersionTag;
use mcpevol_anchor as anchor;
use mcpevol_core::inventory::Inventory;

/// The tools a release may plan on a server that serves fewer: the slots no served tool is
/// left for fail, and the tool slots drafted in their place add new tools. Clamped to the tools
/// served, a release of a one- or two-tool server touched one or two (9 of the 26 servers of
/// servers-npm, whose releases kept the median at 2), where real small servers grow. Only small
/// servers: on a six-tool fixture, planning two beyond the tools served left no untouched
/// tool for a change drafted in a dropped one's place.
pub(super) const FEWEST_PLANNABLE: usize = 3;

/// A release being drafted: the run's events with its changes so far, its draws, and what it
/// has made.
pub(super) struct Drafting {
    pub(super) tally: plan::Tally,
    pub(super) rng: Rng,
    /// Whether the release may make P18 (an addition beside another tool's new description).
    pub(super) pairs: bool,
    pub(super) touched: Vec<String>,
    /// The tools a change of the release copied (left free for changes of their own).
    pub(super) copied: Vec<String>,
    pub(super) changes: Vec<Proposal>,
    /// What each change was drafted for.
    pub(super) slots: Vec<Slot>,
    /// Whether the change being drafted stands in for a dropped one.
    pub(super) substituting: bool,
    pub(super) adds: bool,
    pub(super) describes: bool,
    /// Operators not drafted on this server any more ([`unseen_operators`]).
    pub(super) unseen: Vec<String>,
    /// Every slot the release planned is drafted and none made a change: a tool slot then
    /// takes a replacement or removal that fits rather than leave the release empty.
    pub(super) last: bool,
}

impl Drafting {
    /// How much the release needs the slot being filled (see [`plan::Need`]).
    pub(super) fn need(&self) -> plan::Need {
        match (self.changes.is_empty(), self.last) {
            (false, _) => plan::Need::Spare,
            (true, false) => plan::Need::Wanted,
            (true, true) => plan::Need::Only,
        }
    }
}

/// What a change of a release was drafted for: its slot's class, and the events counted for
/// it when it was drafted (on the first change of a recipe), taken back if it is dropped. Left
/// counted, a dropped addition made P2 look met, and the change drafted in its place was a
/// removal: P17 came out at twice its target.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Slot {
    pub(super) class: Class,
    pub(super) counted: Vec<Label>,
}

/// A number from the name the server gives itself (FNV-1a), 0 where it gives none.
pub(super) fn name_key(server: &serde_json::Value) -> u64 {
    match server["name"].as_str() {
        Some(name) if !name.is_empty() => name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }),
        _ => 0,
    }
}

/// The records of the versions before the one being made (the original has none).
pub(super) fn earlier_records(ask: &Ask<'_>) -> Result<Vec<RoundRecord>, EvolveError> {
    let mut records = Vec::new();
    for v in ask.ws.versions()? {
        if v.tag == VersionTag::ORIGINAL || v.tag >= ask.version {
            continue;
        }
        records.extend(version_record::read_round(ask.ws, v.tag)?);
    }
    Ok(records)
}

/// The events and changed tools of the earlier versions' `records`, counted as releases are.
pub(super) fn realised_so_far(records: &[RoundRecord]) -> plan::Tally {
    let mut tally = plan::Tally::default();
    for record in records {
        let events = release::classify(&record.schema_changes);
        for e in events.events {
            tally.add(e);
        }
        tally.changed += events.changed;
        tally.composite += events.composite;
        if record.release.is_some() && events.touched > 0 {
            *tally.sizes.entry(events.touched).or_default() += 1;
        }
        if let Some(release) = record.release.as_ref().filter(|r| r.planned_tools > 1) {
            tally.releases += 1;
            tally.short += release.planned_tools.saturating_sub(events.touched);
        }
    }
    tally
}

/// Changes of one operator whose edits the running server showed no trace of ("no change at
/// all": a bound written where the server's schema builder does not read it), in the earlier
/// versions of the run, before an operator is no longer drafted on it: one may be the tool's
/// own case, two are the server's way of building schemas. Drafted again each version, such
/// changes were dropped 34 times on servers-npm (3 seeds), each costing an attempt and a tool.
pub(super) const UNSEEN_DROPS: usize = 2;

/// The operators whose changes were dropped from the run's earlier versions [`UNSEEN_DROPS`]
/// times or more for leaving the served schema unchanged, more often than they committed.
pub(super) fn unseen_operators(records: &[RoundRecord]) -> Vec<String> {
    let (mut unseen, mut committed) = (Vec::new(), Vec::new());
    for record in records {
        for r in &record.rejected {
            if let Some(op) = &r.operator
                && r.kind == version_record::RejectionKind::Contract
                && r.reason.contains("no change at all")
            {
                unseen.push(op.to_string());
            }
        }
        committed.extend(
            record
                .changes
                .iter()
                .map(|c| c.proposal.operator.to_string()),
        );
    }
    never_shown(&unseen, &committed)
}

/// The operators of `unseen` (one entry per change the server showed no trace of) that appear
/// there [`UNSEEN_DROPS`] times or more, and more often than in `committed`.
fn never_shown(unseen: &[String], committed: &[String]) -> Vec<String> {
    let count = |list: &[String], op: &str| list.iter().filter(|o| *o == op).count();
    let mut out: Vec<String> = unseen
        .iter()
        .filter(|op| {
            let drops = count(unseen, op);
            drops >= UNSEEN_DROPS && drops > count(committed, op)
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Drops the changes whose edits no longer apply without the dropped ones (drafted over
/// them: a parameter's description over its new bound), each recorded as dropped, so that
/// no attempt is spent on edits that cannot apply; returns what they were drafted for.
pub(super) fn drop_stranded(
    ask: &Ask<'_>,
    changes: &mut Vec<Proposal>,
    slots: &mut Vec<Slot>,
    rejected: &mut Vec<Rejection>,
) -> Vec<Slot> {
    let Ok(scope) = crate::confine::Scope::of_workspace(ask.root) else {
        return Vec::new();
    };
    let mut kept: Vec<Proposal> = Vec::new();
    let mut kept_slots: Vec<Slot> = Vec::new();
    let mut stranded: Vec<Slot> = Vec::new();
    let drafted = std::mem::take(changes);
    for (change, slot) in drafted.into_iter().zip(std::mem::take(slots)) {
        let hunks: Vec<crate::hunks::Hunk> = kept
            .iter()
            .chain([&change])
            .flat_map(|p| p.hunks.clone())
            .collect();
        match crate::hunks::apply_in_memory(ask.root, &scope, &hunks) {
            Ok(_) => {
                kept.push(change);
                kept_slots.push(slot);
            }
            Err(e) => {
                let error = AttemptError::from(e);
                let mut r = error.rejection(
                    Some(change.operator.clone()),
                    change.targets.clone(),
                    change.hunks.clone(),
                );
                r.reason = format!(
                    "dropped from the release: its edits were drafted over a dropped change: {}",
                    r.reason
                );
                rejected.push(r);
                stranded.push(slot);
            }
        }
    }
    *changes = kept;
    *slots = kept_slots;
    stranded
}

/// Whether `op` leaves its tool as a tool of its own: a copy's source may take such a change in
/// the same release, but not a second copy, a replacement or a removal (a copy and the
/// source's removal are a rename under another name).
pub(super) fn keeps_tool(op: mcpevol_core::operators::Builtin) -> bool {
    use mcpevol_core::operators::Builtin::*;
    !matches!(
        op,
        ToolAddition | ToolIntegration | ToolReplacement | ToolRemoval
    )
}

/// The served tools of the work tree as it is now.
pub(super) fn inventory(ask: &Ask<'_>) -> Result<Inventory, EvolveError> {
    let started = Instant::now();
    let mut inventory =
        anchor::anchor_with(ask.root, ask.cache).map_err(|e| EvolveError::ServerBroken {
            root: ask.root.display().to_string(),
            version: ask.version.previous().unwrap_or_default(),
            why: e.to_string(),
        })?;
    served::keep_served(&mut inventory, ask.previous);
    served::mark_opaque_params(&mut inventory, ask.previous);
    ask.clock.add(Step::Anchor, started);
    Ok(inventory)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_operator_whose_changes_twice_showed_nothing_and_seldom_committed_is_not_drafted() {
        assert_eq!(
            never_shown(&ops(&["O6", "O1", "O6"]), &ops(&["O9"])),
            ["O6"]
        );
        // Once may be the tool's own case.
        assert!(never_shown(&ops(&["O6"]), &[]).is_empty());
        // Where it commits as often as not, it works on most tools.
        assert!(never_shown(&ops(&["O6", "O6"]), &ops(&["O6", "O6", "O6"])).is_empty());
    }
}
