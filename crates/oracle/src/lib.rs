//! mcpevol-oracle: what decides whether a version works. It runs the real server in a sandbox
//! ([`server`]), proves its behaviour against the previous version's call by call
//! ([`validate`]), and judges what a round did to the descriptions ([`describe_check`]).

pub mod describe_check;
pub mod server;
pub mod validate;
