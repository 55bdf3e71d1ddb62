//! A catalog of installed servers (`servers-npm/servers.toml`): where each package is and how
//! to launch it, for surveys, tests and benchmarks over many real servers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::server::LaunchConfig;
use crate::workspace::pypi;

/// Where a catalog's PyPI packages are installed, beside its `servers.toml`.
pub const PYPI_INSTALLS: &str = "installed";

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
    /// The command; without it, `node` for an npm package, and for a PyPI release the launch
    /// settings of its install, with `args` appended.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub styles: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
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

/// One PyPI install of a catalog: made now or found, and what its resolution had to relax.
#[derive(Debug, Clone)]
pub struct Install {
    pub fresh: bool,
    pub note: Option<String>,
}

impl Catalog {
    /// Installs every PyPI package the catalog names under `installed/` beside it, skipping
    /// those already there; returns each with how it went. One failed install does not stop
    /// the others.
    pub fn install_pypi(
        &self,
        catalog_dir: &Path,
    ) -> Vec<(String, Result<Install, pypi::PypiError>)> {
        let cache = catalog_dir.join(PYPI_INSTALLS);
        let mut done: Vec<(String, Result<Install, pypi::PypiError>)> = Vec::new();
        for entry in &self.servers {
            let Some(spec) = entry.pypi_spec() else {
                continue;
            };
            if done.iter().any(|(p, _)| *p == entry.package) {
                continue;
            }
            let result = spec.and_then(|spec| {
                let fresh = !pypi::install_dir(&spec, &cache)
                    .join("launch.toml")
                    .is_file();
                let installed = pypi::install_release(&spec, &cache)?;
                Ok(Install {
                    fresh,
                    note: installed.resolution.summary(),
                })
            });
            done.push((entry.package.clone(), result));
        }
        done
    }

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
    /// The installed package folder, given the folder that holds `servers.toml`: under
    /// `node_modules/` for an npm package, under `installed/pypi/` for `pypi:NAME==VERSION`.
    pub fn package_dir(&self, catalog_dir: &Path) -> PathBuf {
        match self.pypi_spec() {
            Some(Ok(spec)) => {
                pypi::install_dir(&spec, &catalog_dir.join(PYPI_INSTALLS)).join("package")
            }
            _ => catalog_dir.join("node_modules").join(&self.package),
        }
    }

    /// The PyPI release this entry runs, when `package` is `pypi:NAME==VERSION`.
    pub fn pypi_spec(&self) -> Option<Result<pypi::PypiSpec, pypi::PypiError>> {
        pypi::PypiSpec::parse(&self.package)
    }

    /// Launch settings, given the folder that holds `servers.toml`; `{tmp}` stays in them and
    /// becomes a fresh folder at each start.
    pub fn launch_config(&self, catalog_dir: &Path) -> LaunchConfig {
        if let (None, Some(Ok(spec))) = (&self.command, self.pypi_spec()) {
            let installed = pypi::install_dir(&spec, &catalog_dir.join(PYPI_INSTALLS));
            // Not installed yet: the start fails naming `.venv/bin/python`, as it should.
            let mut config = std::fs::read_to_string(installed.join("launch.toml"))
                .ok()
                .and_then(|text| toml::from_str::<LaunchConfig>(&text).ok())
                .unwrap_or_else(|| LaunchConfig {
                    command: pypi::VENV_PYTHON.into(),
                    args: Vec::new(),
                    env: BTreeMap::new(),
                });
            config.args.extend(self.args.iter().cloned());
            config.env.extend(self.env.clone());
            return config;
        }
        LaunchConfig {
            command: self.command.clone().unwrap_or_else(|| "node".into()),
            args: self.args.clone(),
            env: self.env.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(toml_text: &str) -> CatalogEntry {
        let catalog: Catalog = toml::from_str(toml_text).unwrap();
        catalog.servers.into_iter().next().unwrap()
    }

    #[test]
    fn a_pypi_entry_without_a_command_runs_as_its_install_says_with_its_args_appended() {
        let dir = tempfile::tempdir().unwrap();
        let e = entry(
            "[[server]]\nid = \"x\"\npackage = \"pypi:some-server==1.0\"\nargs = [\"stdio\"]\nenv = { K = \"v\" }\n",
        );
        let spec = e.pypi_spec().unwrap().unwrap();
        let installed = pypi::install_dir(&spec, &dir.path().join(PYPI_INSTALLS));
        std::fs::create_dir_all(&installed).unwrap();
        std::fs::write(
            installed.join("launch.toml"),
            "command = \".venv/bin/python\"\nargs = [\"-c\", \"run()\"]\n[env]\nPYTHONPATH = \".\"\n",
        )
        .unwrap();
        let launch = e.launch_config(dir.path());
        assert_eq!(launch.command, ".venv/bin/python");
        assert_eq!(launch.args, ["-c", "run()", "stdio"]);
        assert_eq!(launch.env["PYTHONPATH"], ".");
        assert_eq!(launch.env["K"], "v");
    }

    #[test]
    fn an_npm_entry_without_a_command_runs_under_node() {
        let e = entry("[[server]]\nid = \"x\"\npackage = \"pkg\"\nargs = [\"dist/index.js\"]\n");
        let launch = e.launch_config(Path::new("."));
        assert_eq!(launch.command, "node");
        assert_eq!(launch.args, ["dist/index.js"]);
    }
}
