//! The oracle's kill rate: every planted defect of the mutation suite (`tests/common/mutants.rs`,
//! four server styles) judged through the attempt loop, one round each, and the honest controls
//! beside them. Prints one line per mutant (killed, survived; kept, lost for a control) with the
//! reason, then the kill rate and the controls kept.
//!
//!     cargo run --release --example oracle_mutants
//!
//! Needs what `scripts/test.sh` installs (the fixtures' node_modules and Python environment). A
//! measurement, not a test: `tests/it/mutants.rs` asserts the same outcomes.

#[path = "../tests/common/mutants.rs"]
mod mutants;
#[path = "../tests/common/stub.rs"]
#[allow(dead_code)]
mod stub;

use mutants::Expected;

/// The repository, where the fixtures are (`mutants` reads it as `super::repo`).
fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temp folder");
    let (mut killed, mut defects, mut kept, mut controls) = (0, 0, 0, 0);
    for mutant in mutants::all() {
        let judged = mutants::judge(&rt, &mutant, dir.path());
        let ok = judged.as_expected(mutant.expected);
        let word = match (mutant.expected, ok) {
            (Expected::Proven, true) => "kept",
            (Expected::Proven, false) => "LOST",
            (_, true) => "killed",
            (_, false) => "SURVIVED",
        };
        if mutant.expected == Expected::Proven {
            controls += 1;
            kept += usize::from(ok);
        } else {
            defects += 1;
            killed += usize::from(ok);
        }
        let how = match (judged.status, judged.proven) {
            (mcpevol::evolve::RoundStatus::Committed, Some(true)) => "committed proven",
            (mcpevol::evolve::RoundStatus::Committed, _) => "committed unproven",
            _ => "refused",
        };
        let reason: String = judged.reason.chars().take(150).collect();
        println!(
            "{word:<8} {:<40} {:<3} {how}: {reason}",
            mutant.name, mutant.operator
        );
    }
    println!(
        "\nkill rate: {killed} of {defects} planted defects ({:.0}%); honest controls kept: {kept} of {controls}",
        100.0 * killed as f64 / defects.max(1) as f64
    );
}
