//! mcpevol: evolve the source code of real MCP servers, version by version.
//!
//! The pipeline is a workspace of crates, each depending only on those below it:
//! - `mcpevol-core`: the shared vocabulary (inventory, schema changes, operators, contracts);
//! - `mcpevol-anchor` ([`anchor`]): finds every tool in a package's sources;
//! - `mcpevol-oracle` ([`server`], [`validate`], [`describe_check`]): runs the real server in a
//!   sandbox and proves a version's behaviour;
//! - `mcpevol-engine` ([`mutate`], [`evolve`], [`workspace`], ...): makes and commits versions;
//! - this crate, the command line and what reads the versions back: [`history`] reads their
//!   records and [`report`] shows them (log, diff, pages); [`batch`] evolves many servers and
//!   [`export`] writes their stages out; [`drift`] replays calls that worked on the original
//!   against every version; [`catalog`] and [`survey`] measure anchoring on real servers.
//!
//! The lower crates' modules are re-exported here under their old names, so that
//! `mcpevol::schema` or `mcpevol::evolve` reads the same from tests, benches and examples.

pub use mcpevol_anchor as anchor;
pub use mcpevol_core::{
    contract, crashpoint, hash, inventory, launch, listed, operators, prompt, redact, schema, words,
};
pub use mcpevol_engine::{
    confine, evolve, hunks, init, llm, mutate, release, syntax_check, version_record, workspace,
};
pub use mcpevol_oracle::{describe_check, server, validate};

pub mod batch;
pub mod catalog;
pub mod drift;
pub mod export;
pub mod history;
pub mod realism;
pub mod report;
pub mod survey;
