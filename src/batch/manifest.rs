//! The batch manifest: which servers to evolve, from where, launched how, and with which seed
//! and number of rounds; read strictly and checked before any work starts.
//!
//! `servers-npm/servers.toml` is a manifest: `[[server]]` tables with `id`, `package` (a folder
//! under `node_modules/` beside the manifest), `command`, `args`, `env`, and notes.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toml::Spanned;

use crate::server::LaunchConfig;

/// Servers whose installability is checked at once.
pub const INSTALL_CHECKS_AT_ONCE: usize = 8;
/// How long `npm view` may take to say whether an npm spec exists.
pub const NPM_VIEW_TIMEOUT: Duration = Duration::from_secs(60);

/// One `[[server]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestEntry {
    /// The server's name in the batch: its folder and its key in summaries.
    #[serde(alias = "name")]
    id: String,
    /// A package folder under `node_modules/` beside the manifest.
    package: Option<String>,
    /// An npm spec (`name@version`), or a package folder (relative to the manifest).
    source: Option<String>,
    command: Option<String>,
    args: Option<Vec<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    seed: Option<u64>,
    rounds: Option<u32>,
    // Informational fields of servers.toml, kept so that it stays a valid manifest.
    #[serde(default)]
    #[allow(dead_code)]
    styles: Vec<String>,
    #[allow(dead_code)]
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "server", default)]
    servers: Vec<Spanned<ManifestEntry>>,
}

/// Where a server's package comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "value")]
pub enum Origin {
    /// An installed or hand-made package folder (absolute).
    Folder(PathBuf),
    /// An npm spec, packed and installed by `init`.
    Npm(String),
}

impl Origin {
    /// What `init` takes as its source.
    pub fn as_source(&self) -> String {
        match self {
            Origin::Folder(p) => p.display().to_string(),
            Origin::Npm(spec) => spec.clone(),
        }
    }
}

/// A server of the batch, resolved.
#[derive(Debug, Clone, Serialize)]
pub struct Server {
    pub name: String,
    pub origin: Origin,
    /// Launch settings given in the manifest; None to read them from the package.
    pub launch: Option<LaunchConfig>,
    /// Environment added to the package's own launch settings (when `launch` is None).
    pub env: BTreeMap<String, String>,
    /// Arguments appended to the package's own launch settings (when `launch` is None).
    pub args: Vec<String>,
    pub seed: Option<u64>,
    pub rounds: Option<u32>,
    /// The line of its `[[server]]` table, for messages.
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct Manifest {
    pub path: PathBuf,
    /// SHA-256 of the manifest's text: shards of one batch must agree on it.
    pub digest: String,
    pub servers: Vec<Server>,
}

/// A problem with one place of the manifest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {}{why}", path.display(), server.as_ref().map(|s| format!("server `{s}`: ")).unwrap_or_default())]
pub struct Problem {
    pub path: PathBuf,
    pub line: usize,
    pub server: Option<String>,
    pub why: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read the manifest {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}", list(.0))]
    Problems(Vec<Problem>),
}

fn list(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(Problem::to_string).collect();
    match lines.as_slice() {
        [one] => one.clone(),
        _ => format!(
            "{} problems in the manifest:\n    {}",
            lines.len(),
            lines.join("\n    ")
        ),
    }
}

impl Manifest {
    /// Reads and resolves the manifest; every problem found is reported at once, each with its
    /// line and server. Installability is checked separately ([`Manifest::check_installable`]).
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let problem = |span: Option<Range<usize>>, server: Option<String>, why: String| Problem {
            path: path.to_path_buf(),
            line: span.map_or(1, |s| line_of(&text, s.start)),
            server,
            why,
        };
        let file: File = toml::from_str(&text).map_err(|e| {
            let server = e.span().and_then(|s| server_at(&text, s.start));
            ManifestError::Problems(vec![problem(e.span(), server, e.message().to_string())])
        })?;
        let mut problems = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut servers = Vec::new();
        for spanned in &file.servers {
            let line = line_of(&text, spanned.span().start);
            let entry = spanned.get_ref();
            let at = |why: String| problem(Some(spanned.span()), Some(entry.id.clone()), why);
            if let Some(first) = seen.insert(entry.id.clone(), line) {
                problems.push(at(format!(
                    "the name is used twice (first at line {first}); names must be unique"
                )));
                continue;
            }
            if !valid_name(&entry.id) {
                problems.push(at(
                    "a name is a folder name: letters, digits, `-`, `_` or `.`, not starting with `.`"
                        .into(),
                ));
                continue;
            }
            match resolve(entry, dir, line) {
                Ok(server) => servers.push(server),
                Err(why) => problems.push(at(why.to_string())),
            }
        }
        if servers.is_empty() && problems.is_empty() {
            problems.push(problem(None, None, "no [[server]] table".into()));
        }
        if !problems.is_empty() {
            return Err(ManifestError::Problems(problems));
        }
        Ok(Manifest {
            path: path.to_path_buf(),
            digest: hex(&Sha256::digest(text.as_bytes())),
            servers,
        })
    }

    /// Checks that each of `servers` can be installed: a folder holds `package.json`, an npm
    /// spec is known to the registry (`npm view`, several at once).
    pub fn check_installable(&self, servers: &[&Server]) -> Result<(), ManifestError> {
        let mut problems = Vec::new();
        // A few at a time: each npm spec is one `npm view` process.
        for group in servers.chunks(INSTALL_CHECKS_AT_ONCE) {
            std::thread::scope(|scope| {
                let checks: Vec<_> = group
                    .iter()
                    .map(|s| scope.spawn(move || installable(s).err().map(|why| (*s, why))))
                    .collect();
                for check in checks {
                    if let Some((s, why)) = check.join().expect("a check thread does not panic") {
                        problems.push(Problem {
                            path: self.path.clone(),
                            line: s.line,
                            server: Some(s.name.clone()),
                            why: why.to_string(),
                        });
                    }
                }
            });
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ManifestError::Problems(problems))
        }
    }
}

/// What is wrong with one server of a manifest.
#[derive(Debug, thiserror::Error)]
enum ServerProblem {
    #[error("give `package` or `source`, not both")]
    PackageAndSource,
    #[error("no `package` (a folder under node_modules/) or `source` (an npm spec or a folder)")]
    NoSource,
    #[error("{} has no package.json, so it is not a package", .0.display())]
    NotAPackage(PathBuf),
    #[error("{} does not exist (is the package installed?)", .0.display())]
    Missing(PathBuf),
    #[error("cannot run `npm view {spec}`: {source}")]
    NpmView {
        spec: String,
        source: std::io::Error,
    },
    #[error("`npm view {spec}` did not answer within {}s", NPM_VIEW_TIMEOUT.as_secs())]
    NpmViewTimeout { spec: String },
    #[error("npm package `{spec}` cannot be installed: {cause}")]
    NotInstallable { spec: String, cause: String },
    #[error("{0}")]
    BadPypiSpec(String),
}

fn resolve(entry: &ManifestEntry, dir: &Path, line: usize) -> Result<Server, ServerProblem> {
    let origin = match (&entry.package, &entry.source) {
        // `package = "pypi:NAME==VERSION"`: installed beside the manifest (`mcpevol install`).
        (Some(package), None) if package.starts_with("pypi:") => {
            let spec = crate::workspace::pypi::PypiSpec::parse(package)
                .expect("starts with pypi:")
                .map_err(|e| ServerProblem::BadPypiSpec(e.to_string()))?;
            let installs = dir.join(crate::catalog::PYPI_INSTALLS);
            Origin::Folder(absolute(
                &crate::workspace::pypi::install_dir(&spec, &installs).join("package"),
            ))
        }
        (Some(package), None) => Origin::Folder(absolute(&dir.join("node_modules").join(package))),
        (None, Some(source)) if is_folder(source, dir) => {
            Origin::Folder(absolute(&dir.join(source)))
        }
        (None, Some(spec)) => Origin::Npm(spec.clone()),
        (Some(_), Some(_)) => return Err(ServerProblem::PackageAndSource),
        (None, None) => return Err(ServerProblem::NoSource),
    };
    // A Python release has no default command of its own kind: without `command` it runs as
    // its install says, with `args` appended. An npm package's default command is node.
    let python = [&entry.package, &entry.source]
        .iter()
        .any(|s| s.as_deref().is_some_and(|s| s.starts_with("pypi:")));
    let given = entry.command.is_some() || (entry.args.is_some() && !python);
    let launch = given.then(|| LaunchConfig {
        command: entry.command.clone().unwrap_or_else(|| "node".into()),
        args: entry.args.clone().unwrap_or_default(),
        env: entry.env.clone(),
    });
    Ok(Server {
        name: entry.id.clone(),
        origin,
        env: if launch.is_some() {
            BTreeMap::new()
        } else {
            entry.env.clone()
        },
        args: if launch.is_some() {
            Vec::new()
        } else {
            entry.args.clone().unwrap_or_default()
        },
        launch,
        seed: entry.seed,
        rounds: entry.rounds,
        line,
    })
}

/// A source is a folder when it is written as a path or names an existing folder; anything
/// else is an npm spec.
fn is_folder(source: &str, dir: &Path) -> bool {
    source.starts_with(['.', '/', '~']) || dir.join(source).is_dir()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn installable(server: &Server) -> Result<(), ServerProblem> {
    match &server.origin {
        Origin::Folder(dir) if dir.join("package.json").is_file() => Ok(()),
        Origin::Folder(dir) if crate::anchor::is_python_package(dir) => Ok(()),
        Origin::Folder(dir) if dir.is_dir() => Err(ServerProblem::NotAPackage(dir.clone())),
        Origin::Folder(dir) => Err(ServerProblem::Missing(dir.clone())),
        // A PyPI spec's release is looked up when it is installed.
        Origin::Npm(spec) if spec.starts_with("pypi:") => {
            crate::workspace::pypi::PypiSpec::parse(spec)
                .expect("starts with pypi:")
                .map(|_| ())
                .map_err(|e| ServerProblem::BadPypiSpec(e.to_string()))
        }
        Origin::Npm(spec) => npm_view(spec),
    }
}

fn npm_view(spec: &str) -> Result<(), ServerProblem> {
    let failed = |source| ServerProblem::NpmView {
        spec: spec.to_string(),
        source,
    };
    let mut child = Command::new("npm")
        .args(["view", spec, "version"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(failed)?;
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > NPM_VIEW_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ServerProblem::NpmViewTimeout {
                    spec: spec.to_string(),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(failed(e)),
        }
    }
    let output = child.wait_with_output().map_err(failed)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && !stdout.trim().is_empty() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let cause = stderr
        .lines()
        .find(|l| l.contains("E404") || l.contains("ERR!"))
        .unwrap_or("no such version")
        .trim();
    Err(ServerProblem::NotInstallable {
        spec: spec.to_string(),
        cause: cause.to_string(),
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The `id` of the `[[server]]` table that holds byte `offset`, read leniently, for messages
/// about a table the strict reading rejected.
fn server_at(text: &str, offset: usize) -> Option<String> {
    #[derive(Deserialize)]
    struct Loose {
        #[serde(rename = "server", default)]
        servers: Vec<Spanned<toml::Table>>,
    }
    let loose: Loose = toml::from_str(text).ok()?;
    loose
        .servers
        .iter()
        .rev()
        .find(|t| t.span().start <= offset)
        .and_then(|t| {
            let table = t.get_ref();
            table
                .get("id")
                .or_else(|| table.get("name"))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
