//! The oracle mutation suite (`tests/common/mutants.rs`): every planted defect, in the four
//! server styles, is refused or left unproven with a reason that names it, and every honest
//! control beside them commits proven (a sample of the defects unless the sweep is whole, see
//! `common::whole_sweep`). `cargo run --example oracle_mutants` prints the same
//! table with the kill rate.

use crate::common;

use std::sync::Mutex;

use crate::common::mutants::{self, Expected, Judged, Mutant};

/// Judges every mutant, two at a time (each round starts its own servers).
fn judge_all(all: &[Mutant]) -> Vec<Judged> {
    let dir = tempfile::tempdir().unwrap();
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<Judged>>> = Mutex::new((0..all.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let rt = tokio::runtime::Runtime::new().unwrap();
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(mutant) = all.get(i) else { break };
                    let judged = mutants::judge(&rt, mutant, dir.path());
                    results.lock().unwrap()[i] = Some(judged);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

#[test]
fn every_planted_defect_is_refused_or_unproven_naming_it_and_every_honest_control_commits_proven() {
    common::python_fixtures();
    let all = mutants::all();
    assert!(
        all.iter()
            .filter(|m| m.expected != Expected::Proven)
            .count()
            >= 25,
        "at least 25 planted defects"
    );
    // A whole sweep judges every mutant; the sample, every honest control and every third
    // planted defect (`cargo run --example oracle_mutants` judges them all too).
    let all: Vec<Mutant> = if common::whole_sweep() {
        all
    } else {
        let defects = all.iter().filter(|m| m.expected != Expected::Proven);
        let sampled: Vec<&str> = defects.step_by(3).map(|m| m.name).collect();
        all.into_iter()
            .filter(|m| m.expected == Expected::Proven || sampled.contains(&m.name))
            .collect()
    };
    let judged = judge_all(&all);
    let mut survivors = Vec::new();
    for (mutant, judged) in all.iter().zip(&judged) {
        if !judged.as_expected(mutant.expected) {
            survivors.push(format!(
                "{} ({}): expected {:?}, got {:?} {:?}: {}",
                mutant.name,
                mutant.class,
                mutant.expected,
                judged.status,
                judged.proven,
                judged.reason
            ));
        }
    }
    assert!(survivors.is_empty(), "{}", survivors.join("\n"));
}

#[test]
#[ignore = "debugging one mutant: MUTANT=name cargo test --test it judged_alone -- --ignored"]
fn the_mutant_named_in_the_environment_is_judged_alone_and_its_record_printed() {
    let name = std::env::var("MUTANT").unwrap();
    let all = mutants::all();
    let mutant = all.iter().find(|m| m.name == name).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let judged = mutants::judge(&rt, mutant, dir.path());
    let round = std::fs::read_to_string(dir.path().join(name).join(".mcpevol/round.json"))
        .unwrap_or_default();
    println!("{judged:?}\n{round}");
}

#[test]
fn a_record_whose_verdicts_and_proof_were_taken_out_reads_back_failed_and_unproven() {
    // The defect a hand can plant in a record rather than in a server: the fields that say
    // what passed and what was proven, removed. They must not read back as their success.
    let all = mutants::all();
    let control = all
        .iter()
        .find(|m| m.name == "json-control-description")
        .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let judged = mutants::judge(&rt, control, dir.path());
    assert_eq!(judged.proven, Some(true), "{judged:?}");
    let work = dir.path().join(control.name);
    let path = work.join(".mcpevol/round.json");
    let mut round: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for test in round["tests"].as_array_mut().unwrap() {
        test.as_object_mut().unwrap().remove("verdict");
    }
    let object = round.as_object_mut().unwrap();
    object.remove("proof");
    for change in object["changes"].as_array_mut().unwrap() {
        change.as_object_mut().unwrap().remove("proof");
    }
    let stripped: mcpevol::version_record::RoundRecord = serde_json::from_value(round).unwrap();
    assert!(!stripped.proof.is_proven());
    assert!(stripped.changes.iter().all(|c| !c.proof.is_proven()));
    assert!(
        (stripped.tests.iter()).all(|t| t.verdict == mcpevol::validate::Verdict::Failed),
        "a missing verdict reads as failed"
    );
}
