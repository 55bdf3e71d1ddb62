//! The "how to add" recipes of ARCHITECTURE.md, followed as written: a toy operator file in a
//! folder of the user's, and a toy proposer of our own, evolve a fixture through the same
//! attempt loop as the built-in backends; a rejected proposal is told back to the proposer.

use crate::common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use mcpevol::evolve::{
    self, Ask, Backend, EvolveError, EvolveOptions, GiveUp, Proposed, Proposer, RoundStatus,
};
use mcpevol::hunks::Hunk;
use mcpevol::init::{InitOptions, init};
use mcpevol::mutate::Proposal;
use mcpevol::operators::OperatorId;
use mcpevol::version_record::{self, Author, Rejection, RejectionKind};
use mcpevol::workspace::Workspace;

/// A user operator: one tool's description gets one more sentence, nothing else changes.
const TOY_OPERATOR: &str = r#"+++
id = "T1"
name = "Toy Note"
level = "DESC"
patterns = ["P1"]
summary = "Adds a sentence to one tool's description."

[contract]
allow = ["tool-description-changed"]
require = [{ kind = "tool-description-changed", min = 1 }]
tools = { min = 1, max = 1 }
+++

# T1 Toy Note

## Prompt

Add a sentence to the description of {{targets}} in {{server_name}}:

{{snippets}}
"#;

const FILE: &str = "server.js";
const OLD: &str = "\"List the cities that have forecasts\"";
const NEW: &str =
    "\"List the cities that have forecasts. Each name is one a forecast call accepts.\"";

/// Proposes first an edit that breaks the toy operator's contract (two tools' descriptions),
/// then, told why, the one that keeps it; remembers what it was told.
struct Toy {
    told: Arc<Mutex<Vec<String>>>,
    proposed: u32,
}

#[async_trait::async_trait(?Send)]
impl Proposer for Toy {
    fn author(&self) -> Author {
        Author::Named("toy".into())
    }

    async fn propose(
        &mut self,
        ask: &Ask<'_>,
        _rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError> {
        self.proposed += 1;
        let text = std::fs::read_to_string(ask.root.join(FILE)).unwrap();
        assert!(text.contains(OLD), "the fixture has the description");
        let mut hunks = vec![Hunk::new(FILE, OLD, NEW)];
        match self.proposed {
            1 => hunks.push(Hunk::new(
                FILE,
                "\"Get today's forecast for a city\"",
                "\"Get today's forecast for a city by its name\"",
            )),
            2 => {}
            _ => return Ok(Proposed::GiveUp(GiveUp::because("nothing else to try"))),
        }
        Ok(Proposed::Changes(vec![Proposal {
            operator: OperatorId::parse("T1"),
            targets: vec!["list_cities".into()],
            added: Vec::new(),
            summary: "Toy Note: `list_cities` says what its names are for".into(),
            hunks,
            effects: Vec::new(),
        }]))
    }

    fn rejected(&mut self, error: &evolve::AttemptError) {
        self.told.lock().unwrap().push(error.to_string());
    }
}

fn workspace(dir: &Path) -> std::path::PathBuf {
    let work = dir.join("work");
    let source = common::repo().join("fixtures/switch-esm");
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(init(
            &source.to_string_lossy(),
            &work,
            &InitOptions::new(None),
        ))
        .unwrap();
    work
}

#[test]
fn a_toy_operator_file_and_a_toy_proposer_evolve_a_server_through_the_attempt_loop() {
    common::require_npm_install(&common::repo().join("fixtures"));
    let dir = tempfile::tempdir().unwrap();
    let ops = dir.path().join("my-ops");
    std::fs::create_dir(&ops).unwrap();
    std::fs::write(ops.join("T1-toy-note.md"), TOY_OPERATOR).unwrap();
    let work = workspace(dir.path());

    let told = Arc::new(Mutex::new(Vec::new()));
    let shared = told.clone();
    let backend = Backend::Custom(Arc::new(move || {
        Box::new(Toy {
            told: shared.clone(),
            proposed: 0,
        })
    }));
    let opts = EvolveOptions {
        operator_dirs: vec![ops],
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 1)
    };
    let rounds = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(evolve::evolve(&work, &backend, &opts, |_| {}))
        .unwrap();
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].status, RoundStatus::Committed, "{rounds:?}");
    assert_eq!(rounds[0].attempts, 2);

    // The first proposal touched two tools: the loop rolled it back and said why.
    let told = told.lock().unwrap().clone();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("contract of T1"), "{told:?}");

    let ws = Workspace::open(&work).unwrap();
    let record = version_record::read_round(&ws, "v1").unwrap().unwrap();
    assert_eq!(record.operator, Some(OperatorId::parse("T1")));
    assert_eq!(record.operator_name.as_deref(), Some("Toy Note"));
    assert_eq!(record.backend, Author::Named("toy".into()));
    assert_eq!(record.changes.len(), 1);
    assert_eq!(record.rejected.len(), 1);
    assert_eq!(record.rejected[0].kind, RejectionKind::Contract);
    assert!(
        record
            .tests
            .iter()
            .any(|t| t.tool == "list_cities" && t.verdict == mcpevol::validate::Verdict::Passed),
        "{:?}",
        record.tests
    );
    let live = version_record::read_tools(&ws, "v1").unwrap().unwrap();
    let listed = live
        .tools
        .iter()
        .find(|t| t.is_named("list_cities"))
        .unwrap();
    assert_eq!(
        listed.as_value()["description"],
        "List the cities that have forecasts. Each name is one a forecast call accepts."
    );
}
