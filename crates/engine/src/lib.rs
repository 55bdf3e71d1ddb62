//! mcpevol-engine: making versions. One round, in order:
//! - [`mutate`] proposes one operator's edits ([`llm`] is the model client, [`release`] shapes
//!   several changes into one release);
//! - [`hunks`] applies them inside the workspace ([`confine`] says which paths it may touch) and
//!   [`syntax_check`] checks what the edit did to the syntax;
//! - the oracle (`mcpevol-oracle`) proves the running version, [`version_record`] writes what the
//!   round did, and [`workspace`] commits it as a tagged version.
//!
//! [`evolve`] runs rounds of that pipeline; [`init`] makes the first version.

pub mod confine;
pub mod evolve;
pub mod hunks;
pub mod init;
pub mod llm;
pub mod mutate;
pub mod release;
pub mod syntax_check;
pub mod version_record;
pub mod workspace;
