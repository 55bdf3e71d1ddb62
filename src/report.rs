//! The report pages: one self-contained HTML page and its Markdown twin, built from a
//! workspace's or a batch folder's records (`model.rs`), with charts and highlighted diffs.

pub mod drift;
mod escape;
pub mod highlight;
pub mod html;
pub mod markdown;
mod mix;
pub mod model;
mod svg;
