//! A catalog of installed servers (`servers-npm/servers.toml`): where each package is and how
//! to launch it, for surveys, tests and benchmarks over many real servers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::server::LaunchConfig;

/// Stands for a fresh empty folder in `args` and `env`, for servers that need a place to write.
pub const TMP_PLACEHOLDER: &str = "{tmp}";

#[derive(Debug, Clone, Deserialize)]
pub struct Catalog {
    #[serde(rename = "server")]
    pub servers: Vec<Entry>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
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

impl Entry {
    /// The installed package folder, given the folder that holds `servers.toml`.
    pub fn package_dir(&self, catalog_dir: &Path) -> PathBuf {
        catalog_dir.join("node_modules").join(&self.package)
    }

    /// Launch settings with the placeholder replaced by `tmp`.
    pub fn launch_config(&self, tmp: &Path) -> LaunchConfig {
        let tmp = tmp.to_string_lossy();
        let fill = |s: &String| s.replace(TMP_PLACEHOLDER, &tmp);
        LaunchConfig {
            command: self.command.clone(),
            args: self.args.iter().map(fill).collect(),
            env: self.env.iter().map(|(k, v)| (k.clone(), fill(v))).collect(),
        }
    }
}
