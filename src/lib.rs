//! mcpevol: evolve the source code of real MCP servers, version by version.
//!
//! The pipeline, one module a step:
//! - [`anchor`] finds every tool in the package's sources ([`inventory`] is what it returns);
//! - [`mutate`] proposes one operator's edits ([`operators`] are the operator files, [`prompt`]
//!   their templates, [`llm`] the model client);
//! - [`hunks`] applies them inside the workspace ([`confine`] says which paths it may touch) and
//!   [`syntax_check`] checks what the edit did to the syntax;
//! - [`server`] runs the real server in a sandbox, [`schema`] classifies its tool-list change,
//!   [`contract`] holds it to the operator's contract, [`describe_check`] judges what it did to
//!   the descriptions, and [`validate`] (the oracle) proves its behaviour against the previous
//!   version;
//! - [`version_record`] writes what the round did and [`workspace`] commits it as a tagged version;
//!   [`redact`] keeps credential-looking strings a server said out of prompts and records.
//!
//! [`evolve`] runs rounds of that pipeline; [`init`] makes the first version. Around them:
//! [`history`] reads the versions' records back and [`report`] shows them (log, diff, pages);
//! [`batch`] evolves many servers and [`export`] writes their stages out; [`drift`] replays
//! calls that worked on the original against every version; [`catalog`] and
//! [`survey`] measure anchoring on real servers; [`crashpoint`] lets tests kill a run at a
//! chosen place.

pub mod anchor;
pub mod batch;
pub mod catalog;
pub mod confine;
pub mod contract;
pub mod crashpoint;
pub mod describe_check;
pub mod drift;
pub mod evolve;
pub mod export;
pub mod history;
pub mod hunks;
pub mod init;
pub mod inventory;
pub mod llm;
pub mod mutate;
pub mod operators;
pub mod prompt;
pub mod redact;
pub mod release;
pub mod report;
pub mod schema;
pub mod server;
pub mod survey;
pub mod syntax_check;
pub mod validate;
pub mod version_record;
pub mod workspace;
