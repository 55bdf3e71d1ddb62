//! A change dropped from a release is made up for: on a server whose name guard answers every
//! copy and new name as a tool it never had, the rules' additions and replacements are dropped,
//! and a change of a tool the release had not touched is drafted in the dropped one's place,
//! checked with the rest and committed with its own checks and proof.

use crate::common;

use std::collections::BTreeSet;

use mcpevol::version_record;
use mcpevol::workspace::{VersionTag, Workspace};

/// The first release of the `kiosk` fixture with `seed`: its record, if it committed.
fn first_release(seed: u64) -> Option<version_record::RoundRecord> {
    common::require_npm_install(&common::repo().join("fixtures"));
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let source = common::repo().join("fixtures/oracle/kiosk");
    common::ok(common::mcpevol(&[
        "init",
        &source.to_string_lossy(),
        &work.to_string_lossy(),
    ]));
    let w = work.to_string_lossy();
    let seed = seed.to_string();
    common::mcpevol(&[
        "evolve", &w, "--rounds", "1", "--seed", &seed, "--shape", "release",
    ]);
    let ws = Workspace::open(&work).unwrap();
    version_record::read_round(&ws, VersionTag::new(1)).unwrap()
}

#[test]
fn a_change_dropped_from_a_release_is_made_up_for_by_a_change_of_another_tool() {
    // A change drafted in place of a dropped one may be dropped in turn (a copy, here): the
    // first one that stayed in its release.
    let (record, dropped, instead) = (1..=40)
        .filter_map(first_release)
        .find_map(|record| {
            let (dropped, instead) = record.rejected.iter().find_map(|r| {
                let (_, instead) = r.reason.split_once("; drafted in its place: ")?;
                let kept = record
                    .changes
                    .iter()
                    .any(|c| instead.contains(&c.proposal.summary));
                kept.then(|| (r.clone(), instead.to_string()))
            })?;
            Some((record.clone(), dropped, instead))
        })
        .expect("some seed's release drops a change and keeps one drafted in its place");
    assert!(
        dropped.reason.starts_with("dropped from the release:"),
        "{}",
        dropped.reason
    );
    // The change drafted instead is in the committed release, on a tool the dropped change
    // did not touch.
    let sub = record
        .changes
        .iter()
        .find(|c| instead.contains(&c.proposal.summary))
        .expect("found above");
    let touched: BTreeSet<&String> = sub.proposal.targets.iter().collect();
    assert!(
        dropped.targets.iter().all(|t| !touched.contains(t)),
        "{:?} drafted over the dropped {:?}",
        sub.proposal.targets,
        dropped.targets
    );
    // It was checked with the rest: checks of its own, and their proof (or why none shows).
    assert!(!sub.tests.is_empty(), "{sub:?}");
    assert!(
        sub.proof.is_proven() || sub.proof.unproven_reason.is_some(),
        "{:?}",
        sub.proof
    );
    // It is on a tool no other change of the release touches.
    let others: BTreeSet<&String> = record
        .changes
        .iter()
        .filter(|c| !instead.contains(&c.proposal.summary))
        .flat_map(|c| c.proposal.targets.iter())
        .collect();
    assert!(
        touched.is_disjoint(&others),
        "{touched:?} touched by another change too: {:?}",
        record.changes
    );
}
