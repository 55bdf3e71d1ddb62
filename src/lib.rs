//! mcpevol: evolve the source code of real MCP servers, version by version.
//!
//! The pipeline is visible in the modules: [`anchor`] finds the tools in the source,
//! [`server`] runs the real server and lists what it serves.

pub mod anchor;
pub mod catalog;
pub mod confine;
pub mod contract;
pub mod crashpoint;
pub mod edit;
pub mod evolve;
pub mod init;
pub mod inventory;
pub mod llm;
pub mod mutate;
pub mod operators;
pub mod prompt;
pub mod record;
pub mod report;
pub mod schema;
pub mod server;
pub mod survey;
pub mod syntax_check;
pub mod validate;
pub mod workspace;
