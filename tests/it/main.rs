//! Every integration test but `faults` in one binary (one link of the crate, not fifty): each
//! module is one concern's tests, named as the file it was. `faults` stays its own binary, since
//! it counts the process's open file descriptors, which the other tests' servers would change.
//!
//! `scripts/test.sh --quick` skips the modules that evolve every real server for several rounds.

#[path = "../common/mod.rs"]
mod common;

mod anchor_fixtures;
mod anchor_fixtures_py;
mod anchor_methods;
mod anchor_styles;
mod bad_input;
mod batch;
mod batch_form;
mod browser;
mod calls;
mod capitals;
mod content;
mod copies;
mod crash;
mod cut_off;
mod defaults;
mod deploy;
mod drift;
mod drift_calls;
mod drift_npm;
mod edits_confined;
mod evolve;
mod evolve_llm;
mod evolve_llm_release;
mod evolve_npm;
mod evolve_pypi;
mod evolve_unseen;
mod export;
mod fields;
mod first_answers;
mod format;
mod hostile;
mod json_required;
mod late_crash;
mod listed_expr;
mod llm_client;
mod llm_faults;
mod loosen;
mod mutants;
mod name_table;
mod new_required;
mod one_wrapper;
mod oracle;
mod pages;
mod proof;
mod proposer;
mod pypi_install;
mod python_forms;
mod refactoring;
mod registry_wrappers;
mod release;
mod report;
mod rules_snapshots;
mod rules_snapshots_py;
mod sandbox;
mod search_form;
mod servers_npm;
mod shape_constants;
mod single_form;
mod source_layout;
mod substitute;
mod table_router;
mod title;
mod unreachable;
mod untrusted_input;
mod wrapped_routes;
