//! How to start a server package: `.mcpevol/server.toml` when present, else `package.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a package's launch settings cannot be read. The server's own errors carry these
/// three cases unchanged (`ServerError` in the oracle).
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("{0} has no package.json, so there is no server to start there")]
    NoPackageJson(PathBuf),
    #[error("cannot use the launch settings in {path}: {why}")]
    BadConfig { path: PathBuf, why: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The launch settings of one server, as stored in `.mcpevol/server.toml`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LaunchConfig {
    /// The program to run; `node` unless the package says otherwise.
    #[serde(default = "default_command")]
    pub command: String,
    /// Arguments, with paths relative to the package folder (the server's working directory).
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment. Servers get only these, PATH, and a scratch HOME and TMPDIR, never
    /// the user's environment, which may hold API keys (see `sandbox`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

fn default_command() -> String {
    "node".into()
}

pub const CONFIG_PATH: &str = ".mcpevol/server.toml";

/// The program every Python launch runs, relative to the package folder.
pub const VENV_PYTHON: &str = ".venv/bin/python";
/// A Python package's link to its environment (shared, git-ignored, as `node_modules` is).
pub const VENV_LINK: &str = ".venv";

/// Stands for a fresh empty folder in `args` and `env`, made at each start and removed after:
/// for servers that need a place to write (a memory file, an allowed directory).
pub const TMP_PLACEHOLDER: &str = "{tmp}";

impl LaunchConfig {
    /// Reads the launch settings for the package at `root`.
    pub fn for_package(root: &Path) -> Result<LaunchConfig, LaunchError> {
        let config_path = root.join(CONFIG_PATH);
        if config_path.is_file() {
            let text = read(&config_path)?;
            return toml::from_str(&text).map_err(|e| LaunchError::BadConfig {
                path: config_path,
                why: e.to_string(),
            });
        }
        let manifest_path = root.join("package.json");
        if !manifest_path.is_file() {
            return Err(LaunchError::NoPackageJson(root.to_path_buf()));
        }
        let manifest: serde_json::Value =
            serde_json::from_str(&read(&manifest_path)?).map_err(|e| LaunchError::BadConfig {
                path: manifest_path.clone(),
                why: e.to_string(),
            })?;
        let entry = entry_point(&manifest).ok_or_else(|| LaunchError::BadConfig {
            path: manifest_path,
            why: "it names no `bin` or `main` to start, and there is no index.js".into(),
        })?;
        let entry = if root.join(&entry).is_file() || !root.join("index.js").is_file() {
            entry
        } else {
            "index.js".to_string()
        };
        Ok(LaunchConfig {
            command: default_command(),
            args: vec![entry],
            env: BTreeMap::new(),
        })
    }
}

/// The script a package runs: its only `bin`, the `bin` named like the package, or `main`.
pub fn entry_point(manifest: &serde_json::Value) -> Option<String> {
    let name = manifest["name"].as_str().unwrap_or("");
    let short = name.rsplit('/').next().unwrap_or(name);
    let entry = match &manifest["bin"] {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(map) if !map.is_empty() => {
            let pick = map
                .get(short)
                .or_else(|| map.get(name))
                .or_else(|| map.values().next());
            pick.and_then(|v| v.as_str()).map(str::to_string)
        }
        _ => None,
    };
    entry
        .or_else(|| manifest["main"].as_str().map(str::to_string))
        .or_else(|| Some("index.js".to_string()))
        .map(|e| e.trim_start_matches("./").to_string())
}

/// The package's name for messages: `name` in package.json, else the folder name.
pub fn package_name(root: &Path) -> String {
    let from_manifest = std::fs::read_to_string(root.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|m| m["name"].as_str().map(str::to_string));
    from_manifest.unwrap_or_else(|| {
        root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    })
}

fn read(path: &PathBuf) -> Result<String, LaunchError> {
    std::fs::read_to_string(path).map_err(|e| LaunchError::Io {
        path: path.clone(),
        source: e,
    })
}
