//! A Python tool that a server's own registry calls, positionally and with its arguments parsed
//! into a model (`func(settings, CountParams(**arguments))`): a new parameter's wrapper reads the
//! model's fields and keeps the function synchronous, so the change acts and is proven; the
//! wrapper FastMCP's keyword calls get would read nothing and answer a coroutine.

use crate::common;
use crate::common::given::{self, one_round};
use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::operators::Builtin;

/// The workspace of the `registry-models` fixture under `dir`.
fn registry_models(rt: &tokio::runtime::Runtime, dir: &std::path::Path) -> std::path::PathBuf {
    let fixture = common::repo().join("fixtures/python/registry-models");
    let work = dir.join("w");
    let opts = mcpevol::init::InitOptions::new(None);
    rt.block_on(mcpevol::init::init(
        &fixture.to_string_lossy(),
        &work,
        &opts,
    ))
    .unwrap();
    work
}

#[test]
fn a_new_parameter_of_a_tool_a_registry_calls_with_a_model_acts_and_is_proven() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = registry_models(&rt, dir.path());
    let proposal = given::rules_on(&work, Builtin::FlexibleExpansion, "shout_text");
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains("    def wrapped(*args, **kwargs):"),
        "{written}"
    );
    assert!(
        written.contains("arguments.update(given.model_dump())"),
        "{written}"
    );
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, record) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let record = record.unwrap();
    assert!(record.proof.is_proven(), "{:?}", record.proof);
}

/// The round of the rules' new parameter on `shout_text` with its wrapper rewritten by `broken`.
fn round_with_wrapper(broken: impl Fn(&str) -> String) -> (RoundStatus, String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = registry_models(&rt, dir.path());
    let mut proposal = given::rules_on(&work, Builtin::FlexibleExpansion, "shout_text");
    for hunk in &mut proposal.hunks {
        hunk.replace = broken(&hunk.replace);
    }
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    (status, reason)
}

#[test]
fn a_wrapper_that_reads_keyword_arguments_only_is_rejected_for_ignoring_its_parameter() {
    let (status, reason) =
        round_with_wrapper(|code| code.replace("for given in args:", "for given in ():"));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("not cut as claimed"), "{reason}");
}

#[test]
fn an_async_wrapper_on_a_function_the_registry_calls_without_awaiting_is_rejected() {
    let (status, reason) = round_with_wrapper(|code| {
        code.replace(
            "    def wrapped(*args, **kwargs):",
            "    async def wrapped(*args, **kwargs):",
        )
    });
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("ToolError where the previous version succeeded"),
        "{reason}"
    );
}
