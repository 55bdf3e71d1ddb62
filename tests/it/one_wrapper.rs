//! A handler changed in several versions holds one wrapper: a later change to a wrapped tool
//! extends the wrapper written before (and a router's wrapper gains a section per tool),
//! never wraps it again. Stacked wrappers, one per version, re-read the request each and are
//! code no maintainer writes.

use crate::common;
use crate::common::given;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::realism;
use mcpevol::validate::Effect;

/// Two Flexible Expansions on `tool` of the fixture `name`, then one on `other` (a tool
/// routed by the same function, or None): each commits, and `file` ends with one wrapper.
fn expanded_twice(name: &str, file: &str, tool: &str, other: Option<&str>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    common::require_npm_install(&common::repo().join("fixtures"));
    let fixture = common::repo().join("fixtures").join(name);
    if name.starts_with("python/") {
        common::python_fixtures();
    }
    rt.block_on(mcpevol::init::init(
        &fixture.to_string_lossy(),
        &work,
        &mcpevol::init::InitOptions::new(None),
    ))
    .unwrap();
    let mut params = Vec::new();
    // The first change adds one cut by characters, so that a cut by lines is left to add.
    for (i, target) in [tool, tool].into_iter().chain(other).enumerate() {
        let proposal = given::expansion_where(&work, target, false, |p| match i {
            0 => matches!(p.effects[..], [Effect::TruncateChars { .. }]),
            _ => p.effects.iter().any(|e| e.param().is_some()),
        })
        .expect("some seed adds a parameter");
        params.extend(
            proposal
                .effects
                .iter()
                .filter_map(|e| e.param())
                .map(String::from),
        );
        let backend = Backend::Given {
            proposal: Box::new(proposal),
        };
        let (status, reason, _) = given::one_round(&rt, &work, &backend);
        assert_eq!(status, RoundStatus::Committed, "{reason}");
    }
    let text = std::fs::read_to_string(work.join(file)).unwrap();
    let (wrappers, stacked) = realism::wrappers(&text);
    assert_eq!((wrappers, stacked), (1, 0), "{text}");
    for p in &params {
        assert!(text.contains(&format!("\"{p}\"")), "{p} is read: {text}");
    }
}

#[test]
fn a_handler_function_declared_apart_keeps_one_wrapper_over_two_versions() {
    expanded_twice("register-esm", "index.js", "word_count", None);
}

#[test]
fn an_arrow_handler_keeps_one_wrapper_over_two_versions() {
    expanded_twice("register-esm", "index.js", "list_notes", None);
}

#[test]
fn a_router_keeps_one_wrapper_with_a_section_per_tool() {
    expanded_twice(
        "switch-esm",
        "server.js",
        "list_cities",
        Some("get_forecast"),
    );
}

#[test]
fn a_python_function_keeps_one_wrapping_helper_over_two_versions() {
    expanded_twice(
        "python/fastmcp-decorators",
        "server.py",
        "get_forecast",
        None,
    );
}

#[test]
fn a_python_call_handler_keeps_one_wrapping_helper_with_a_section_per_tool() {
    expanded_twice(
        "python/lowlevel-match",
        "server.py",
        "echo",
        Some("word_count"),
    );
}
