//! mcpevol: evolve the source code of real MCP servers, version by version.
//!
//! The pipeline is visible in the modules: [`anchor`] finds the tools in the source,
//! [`server`] runs the real server and lists what it serves.

pub mod anchor;
pub mod batch;
pub mod catalog;
pub mod check;
pub mod contract;
pub mod edit;
pub mod evolve;
pub mod export;
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
pub mod validate;
pub mod workspace;
