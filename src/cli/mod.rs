//! Command bodies that have their own module: the batch workflow (`batch`, `batch merge`,
//! `export`, `report`) and what they share with `evolve` (building a backend).

pub mod batch;
pub mod evolve;
pub mod exit;
pub mod export;
pub mod report;
