//! mcpevol-core: the vocabulary every step of the pipeline shares, and nothing that runs a
//! server or edits a file.
//!
//! - [`inventory`]: the anchored view of a package (tools, sites, schemas);
//! - [`schema`]: the tool-list change between two versions, classified;
//! - [`operators`], their [`prompt`] templates and [`contract`]s: the kinds of change, as data;
//! - [`listed`]: a tool as the running server lists it; [`launch`]: how a package is started;
//!   [`words`]: the names new code is given;
//! - [`redact`]: credential-looking strings kept out of prompts and records;
//! - [`hash`] and [`crashpoint`]: a content key for caches, a crash hook for tests.

pub mod contract;
pub mod crashpoint;
pub mod hash;
pub mod inventory;
pub mod launch;
pub mod listed;
pub mod operators;
pub mod prompt;
pub mod redact;
pub mod schema;
pub mod words;
