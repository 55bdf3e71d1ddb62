//! A catalog of installed servers (`servers-npm/servers.toml`): where each package is and how
//! to launch it, for surveys, tests and benchmarks over many real servers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::server::LaunchConfig;

#[derive(Debug, Clone, Deserialize)]
pub struct Catalog {
    #[serde(rename = "server")]
    pub servers: Vec<CatalogEntry>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CatalogEntry {
    pub id: String,
    /// The folder under `node_modules/` (the alias for aliased installs).
    pub package: String,
    #[serde(default = "node")]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub styles: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
}

fn node() -> String {
    "node".into()
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("cannot read the server catalog {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the server catalog {path} is malformed: {why}")]
    Parse { path: PathBuf, why: String },
}

impl Catalog {
    pub fn load(path: &Path) -> Result<Catalog, CatalogError> {
        let text = std::fs::read_to_string(path).map_err(|source| CatalogError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| CatalogError::Parse {
            path: path.to_path_buf(),
            why: e.to_string(),
        })
    }
}

impl CatalogEntry {
    /// The installed package folder, given the folder that holds `servers.toml`.
    pub fn package_dir(&self, catalog_dir: &Path) -> PathBuf {
        catalog_dir.join("node_modules").join(&self.package)
    }

    /// Launch settings; `{tmp}` stays in them and becomes a fresh folder at each start.
    pub fn launch_config(&self) -> LaunchConfig {
        LaunchConfig {
            command: self.command.clone(),
            args: self.args.clone(),
            env: self.env.clone(),
        }
    }
}
