//! What names a PyPI release (`pypi:NAME==VERSION`) and what can go wrong installing one.

use std::path::{Path, PathBuf};

/// `pypi:NAME==VERSION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PypiSpec {
    pub name: String,
    pub version: String,
}

impl PypiSpec {
    /// Reads `pypi:NAME==VERSION`; None when `arg` does not start with `pypi:`.
    pub fn parse(arg: &str) -> Option<Result<PypiSpec, PypiError>> {
        let rest = arg.strip_prefix("pypi:")?;
        let parsed = rest
            .split_once("==")
            .map(|(n, v)| (n.trim(), v.trim()))
            .filter(|(n, v)| {
                !n.is_empty()
                    && !v.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                    && v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.+!".contains(c))
            })
            .map(|(name, version)| PypiSpec {
                name: name.to_string(),
                version: version.to_string(),
            });
        Some(parsed.ok_or_else(|| PypiError::BadSpec(arg.to_string())))
    }

    /// The name as PEP 503 normalizes it (lower case, runs of `-_.` as one `-`).
    pub fn normalized_name(&self) -> String {
        normalize(&self.name)
    }
}

impl std::fmt::Display for PypiSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pypi:{}=={}", self.name, self.version)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PypiError {
    #[error(
        "`{0}` is not a PyPI spec; write pypi:NAME==VERSION, e.g. pypi:mcp-server-time==2025.9.25"
    )]
    BadSpec(String),
    #[error("cannot ask the package index about `{name}`: {why}")]
    Index { name: String, why: String },
    #[error("`{name}` has no release {version} on the package index{}", latest(.known))]
    NoSuchRelease {
        name: String,
        version: String,
        known: Vec<String>,
    },
    #[error(
        "no Python interpreter: neither `python3` nor `python` is on PATH (set MCPEVOL_PYTHON to one)"
    )]
    NoPython,
    #[error("cannot start `{command}`: {source}")]
    Start {
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error("`{command}` failed ({status}){}", indent(.stderr_tail))]
    Failed {
        command: String,
        status: String,
        stderr_tail: String,
    },
    #[error("the install of {what} has no record of its files ({why})")]
    NoRecord { what: String, why: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn latest(versions: &[String]) -> String {
    match versions {
        [] => String::new(),
        _ => format!(" (latest: {})", versions.join(", ")),
    }
}

fn indent(tail: &str) -> String {
    tail.lines().map(|l| format!("\n    {l}")).collect()
}

pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PypiError + '_ {
    move |source| PypiError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// PEP 503 normalization.
pub fn normalize(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        if "-_.".contains(c) {
            gap = true;
        } else {
            if gap && !out.is_empty() {
                out.push('-');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}
