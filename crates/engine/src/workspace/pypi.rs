//! Python packages: a release from PyPI (`pypi:NAME==VERSION`) or a folder with a
//! `pyproject.toml`, made into a workspace holding exactly the package's own files, with its
//! dependencies in a virtual environment shared by every workspace of the same package version.
//!
//! Over 500 lines on purpose: installing (uv or pip), reading the install (RECORD, entry
//! points) and filling a workspace are one sequence, read top to bottom; the index lookup is
//! apart in `pypi_index.rs`.
//!
//! Installs go into a cache (`$MCPEVOL_CACHE`, else `$XDG_CACHE_HOME/mcpevol`, else
//! `~/.cache/mcpevol`), one folder per package version: `venv/` (the package and its
//! dependencies) and `package/` (the package's own files, as its wheel's RECORD lists them).
//! A workspace copies `package/` and links `.venv` to `venv/` (git-ignored, as `node_modules`
//! is). The server runs the workspace's copy, not the installed one: its launch settings put the
//! source folder first on `PYTHONPATH`.
//!
//! A release resolves its dependencies as of its upload date (uv's `--exclude-newer`, pip's
//! `--uploaded-prior-to`), so that a server made for one major version of a dependency (the MCP
//! SDK's 1.x) does not get the next.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcpevol_oracle::server::LaunchConfig;

pub use super::pypi_relax::Resolution;
use super::pypi_spec::io;
pub use super::pypi_spec::{PypiError, PypiSpec, normalize};
pub use mcpevol_oracle::server::launch::{VENV_LINK, VENV_PYTHON};

/// One package version installed in the cache.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The environment (`bin/python`, `lib/pythonX.Y/site-packages`).
    pub venv: PathBuf,
    /// The package's own files, laid out as in site-packages.
    pub package: PathBuf,
    /// How to start it from a package folder that holds a `.venv` link.
    pub launch: LaunchConfig,
    /// How its dependencies were resolved (`resolution.toml` beside `venv/`).
    pub resolution: Resolution,
}

/// Where an install, and a workspace under `.mcpevol/`, record their resolution.
pub const RESOLUTION_FILE: &str = "resolution.toml";

/// The resolution recorded in `dir` (an install folder, or a workspace's `.mcpevol/`).
pub fn read_resolution(dir: &Path) -> Option<Resolution> {
    toml::from_str(&fs::read_to_string(dir.join(RESOLUTION_FILE)).ok()?).ok()
}

/// Where shared installs live.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCPEVOL_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("mcpevol");
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache").join("mcpevol")
}

/// Installs a release into `cache/pypi/NAME-VERSION` unless it is there already.
pub fn install_release(spec: &PypiSpec, cache: &Path) -> Result<Installed, PypiError> {
    let dir = install_dir(spec, cache);
    if let Some(done) = read_installed(&dir) {
        return Ok(done);
    }
    let cutoff = super::pypi_index::release_cutoff(spec)?;
    let requirement = format!("{}=={}", spec.name, spec.version);
    build_install(
        &dir,
        &spec.normalized_name(),
        &requirement,
        cutoff.as_deref(),
    )
}

/// The folder a release is installed in under `cache`.
pub fn install_dir(spec: &PypiSpec, cache: &Path) -> PathBuf {
    cache
        .join("pypi")
        .join(format!("{}-{}", spec.normalized_name(), spec.version))
}

/// Installs the package of a local folder (its dependencies resolved as of today) into a cache
/// folder keyed by its name, version and `pyproject.toml`.
pub fn install_folder(folder: &Path, cache: &Path) -> Result<Installed, PypiError> {
    install_folder_as_of(folder, cache, None)
}

/// [`install_folder`] with its dependencies resolved as of `cutoff` (RFC 3339), as a release's
/// are as of its upload: how a package of one's own reproduces a day's resolution.
pub fn install_folder_as_of(
    folder: &Path,
    cache: &Path,
    cutoff: Option<&str>,
) -> Result<Installed, PypiError> {
    let manifest = folder.join("pyproject.toml");
    let text = fs::read_to_string(&manifest).map_err(io(&manifest))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| PypiError::Io {
        path: manifest.clone(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    })?;
    let project = table.get("project").and_then(|p| p.as_table());
    let field = |k: &str| {
        project
            .and_then(|p| p.get(k))
            .and_then(|v| v.as_str())
            .unwrap_or("unknown")
            .to_string()
    };
    let name = normalize(&field("name"));
    let key = mcpevol_core::hash::content_hash(format!("{text}{cutoff:?}").as_bytes());
    let dir = cache
        .join("pypi")
        .join(format!("local-{name}-{}-{key:016x}", field("version")));
    if let Some(done) = read_installed(&dir) {
        return Ok(done);
    }
    let folder = folder.canonicalize().map_err(io(folder))?;
    build_install(&dir, &name, &folder.display().to_string(), cutoff)
}

/// The install at `dir` when a whole one is there (it is renamed into place when complete).
fn read_installed(dir: &Path) -> Option<Installed> {
    let venv = dir.join("venv");
    let package = dir.join("package");
    let launch = fs::read_to_string(dir.join("launch.toml")).ok()?;
    Some(Installed {
        launch: toml::from_str(&launch).ok()?,
        resolution: read_resolution(dir).unwrap_or_default(),
        venv,
        package,
    })
}

/// Makes the environment and the package folder in a scratch folder beside `dir`, then renames
/// it into place, so that a killed install leaves nothing half-made and two installs of the
/// same version at once both succeed (the second's rename finds the first's and keeps it).
fn build_install(
    dir: &Path,
    name: &str,
    requirement: &str,
    cutoff: Option<&str>,
) -> Result<Installed, PypiError> {
    let parent = dir.parent().expect("a cache folder has a parent");
    fs::create_dir_all(parent).map_err(io(parent))?;
    let scratch = tempfile::Builder::new()
        .prefix(".installing-")
        .tempdir_in(parent)
        .map_err(io(parent))?;
    let venv = scratch.path().join("venv");
    let installer = Installer::find()?;
    installer.make_venv(&venv, None)?;
    let mut resolution = install_resolving(&installer, &venv, requirement, name, cutoff)?;
    resolution.frozen = installer.freeze(&venv);
    let resolution_path = scratch.path().join(RESOLUTION_FILE);
    let resolution_text = toml::to_string(&resolution).expect("a resolution serializes");
    fs::write(&resolution_path, resolution_text).map_err(io(&resolution_path))?;
    let site = site_packages(&venv)?;
    let (mut files, entry_points) = own_files(&site, name)?;
    // A shim's launch runs another distribution's package: its files are sources too.
    files.extend(super::pypi_shim::handed_over(&site, &files));
    let package = scratch.path().join("package");
    for rel in &files {
        let (from, to) = (site.join(rel), package.join(rel));
        if let Some(p) = to.parent() {
            fs::create_dir_all(p).map_err(io(p))?;
        }
        fs::copy(&from, &to).map_err(io(&from))?;
    }
    // The package folder runs as it is (a catalog's servers do): its `.venv` is the install's.
    fs::create_dir_all(&package).map_err(io(&package))?;
    std::os::unix::fs::symlink("../venv", package.join(VENV_LINK)).map_err(io(&package))?;
    let launch = launch_from_entry_points(&entry_points, &files, ".");
    let launch_text = toml::to_string(&launch).expect("launch settings serialize");
    let launch_path = scratch.path().join("launch.toml");
    fs::write(&launch_path, launch_text).map_err(io(&launch_path))?;
    let kept = scratch.keep();
    if let Err(e) = fs::rename(&kept, dir) {
        let _ = fs::remove_dir_all(&kept);
        if read_installed(dir).is_none() {
            return Err(io(dir)(e));
        }
    }
    read_installed(dir).ok_or_else(|| PypiError::NoRecord {
        what: requirement.to_string(),
        why: format!("{} was not left whole", dir.display()),
    })
}

/// Installs `requirement` into `venv`, resolved as of `cutoff` where that resolves; else as
/// the installer's errors lead: a newer interpreter, then later cut-offs for the package that
/// fails (see `pypi_relax.rs`). Returns how it was resolved.
fn install_resolving(
    installer: &Installer,
    venv: &Path,
    requirement: &str,
    name: &str,
    cutoff: Option<&str>,
) -> Result<Resolution, PypiError> {
    let mut resolution = Resolution {
        cutoff: cutoff.map(str::to_string),
        ..Resolution::default()
    };
    // A dependency set that does not resolve as of the upload date: the package the installer
    // names gets a later cut-off, step by step (see `pypi_relax.rs`). A release that needs a
    // newer Python gets the environment remade with one found on PATH.
    loop {
        let error = match installer.install(venv, requirement, &resolution) {
            Ok(()) => break,
            Err(e) => e,
        };
        let stderr = match &error {
            PypiError::Failed { stderr_tail, .. } => stderr_tail.clone(),
            _ => return Err(error),
        };
        if resolution.python.is_none()
            && let Some(newer) = super::pypi_relax::needed_python(&stderr).and_then(python_at_least)
        {
            tracing::warn!(
                "{requirement} needs a newer Python; making its environment with {newer}"
            );
            fs::remove_dir_all(venv).map_err(io(venv))?;
            installer.make_venv(venv, Some(&newer))?;
            resolution.python = Some(newer);
            continue;
        }
        let relaxed = resolution.relax(&stderr, name).cloned();
        let Some(relaxed) = relaxed else {
            return Err(error);
        };
        tracing::warn!(
            "{requirement}: its dependencies as of {} do not resolve; trying {} as of {}",
            cutoff.unwrap_or("its upload"),
            relaxed.package,
            relaxed.cutoff.as_deref().unwrap_or("today")
        );
    }
    Ok(resolution)
}

/// The `site-packages` folder of an environment.
fn site_packages(venv: &Path) -> Result<PathBuf, PypiError> {
    let lib = venv.join("lib");
    let found = fs::read_dir(&lib)
        .map_err(io(&lib))?
        .filter_map(Result::ok)
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir());
    found.ok_or_else(|| PypiError::Io {
        path: lib,
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "no site-packages in it"),
    })
}

/// The files the installed distribution `name` owns under site-packages (its RECORD, without
/// its metadata, scripts, compiled files and `.pth` hooks), and its `entry_points.txt`.
pub fn own_files(site: &Path, name: &str) -> Result<(Vec<String>, String), PypiError> {
    let dist_info = fs::read_dir(site)
        .map_err(io(site))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            let file = p.file_name().unwrap_or_default().to_string_lossy();
            file.ends_with(".dist-info")
                && file
                    .rsplit_once(".dist-info")
                    .and_then(|(stem, _)| stem.rsplit_once('-'))
                    .is_some_and(|(dist, _)| normalize(dist) == name)
        })
        .ok_or_else(|| PypiError::NoRecord {
            what: name.to_string(),
            why: format!("no {name}-*.dist-info in {}", site.display()),
        })?;
    let record_path = dist_info.join("RECORD");
    let record = fs::read_to_string(&record_path).map_err(io(&record_path))?;
    let mut files: Vec<String> = record
        .lines()
        .filter_map(record_path_of)
        .filter(|p| is_own_source(p))
        .filter(|p| site.join(p).is_file())
        .collect();
    files.sort();
    files.dedup();
    let entry_points = fs::read_to_string(dist_info.join("entry_points.txt")).unwrap_or_default();
    Ok((files, entry_points))
}

/// The path of one RECORD line (`path,hash,size`; a path with a comma is quoted).
fn record_path_of(line: &str) -> Option<String> {
    let path = match line.strip_prefix('"') {
        Some(rest) => rest.split_once('"')?.0.to_string(),
        None => line.split(',').next()?.to_string(),
    };
    (!path.is_empty()).then_some(path)
}

fn is_own_source(path: &str) -> bool {
    let first = path.split('/').next().unwrap_or("");
    !(path.starts_with("..")
        || path.starts_with('/')
        || first.ends_with(".dist-info")
        || first.ends_with(".data")
        || path.split('/').any(|c| c == "__pycache__")
        || path.ends_with(".pyc")
        || path.ends_with(".pth"))
}

/// Launch settings from a distribution's console scripts: the one named like a module of the
/// package, else the only or first one, run as `python -c` so that the workspace's copy of the
/// module is what runs. Without a console script, `python -m` on a top-level package that has a
/// `__main__.py`.
pub fn launch_from_entry_points(
    entry_points: &str,
    files: &[String],
    src_root: &str,
) -> LaunchConfig {
    let scripts = console_scripts(entry_points);
    let tops: Vec<&str> = files.iter().filter_map(|f| f.split('/').next()).collect();
    let chosen = scripts
        .iter()
        .find(|(script, _)| tops.contains(&script.replace('-', "_").as_str()))
        .or(scripts.first());
    let args = match chosen {
        Some((_, target)) => vec!["-c".to_string(), runner(target)],
        None => {
            let main = files
                .iter()
                .find_map(|f| f.strip_suffix("/__main__.py"))
                .map(|m| m.replace('/', "."));
            vec!["-m".to_string(), main.unwrap_or_else(|| "server".into())]
        }
    };
    python_launch(args, src_root)
}

/// The settings every Python launch shares: the environment's interpreter, the sources first on
/// the module path, and no `.pyc` written (the environment is read-only in the sandbox).
pub fn python_launch(args: Vec<String>, src_root: &str) -> LaunchConfig {
    LaunchConfig {
        command: VENV_PYTHON.to_string(),
        args,
        env: BTreeMap::from([
            ("PYTHONPATH".to_string(), src_root.to_string()),
            ("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string()),
        ]),
    }
}

/// `[console_scripts]` of an `entry_points.txt`, in order: `(name, "module:attr")`.
fn console_scripts(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[console_scripts]";
        } else if inside && let Some((k, v)) = line.split_once('=') {
            out.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

/// Python that calls an entry point `module:attr.path` (extras in brackets dropped) and exits
/// with its result, as the console script would.
pub fn runner(target: &str) -> String {
    let target = target.split('[').next().unwrap_or(target).trim();
    let (module, attr) = target.split_once(':').unwrap_or((target, "main"));
    let (module, attr) = (module.trim(), attr.trim());
    let head = attr.split('.').next().unwrap_or(attr);
    format!("import sys; from {module} import {head}; sys.exit({attr}())")
}

/// The installer: uv when it can be found (on PATH, or as `python -m uv`), else pip in a venv.
/// `MCPEVOL_INSTALLER=pip` (or `uv`) chooses one.
enum Installer {
    Uv(Vec<String>),
    Pip { python: String },
}

/// The pip option that resolves as of a date (pip 26 and later).
const PIP_CUTOFF_FLAG: &str = "--uploaded-prior-to";

impl Installer {
    fn find() -> Result<Installer, PypiError> {
        let chosen = std::env::var("MCPEVOL_INSTALLER").unwrap_or_default();
        if chosen == "pip" {
            return Ok(Installer::Pip { python: python()? });
        }
        if let Some(uv) = std::env::var_os("MCPEVOL_UV") {
            return Ok(Installer::Uv(vec![uv.to_string_lossy().into_owned()]));
        }
        if succeeds("uv", &["--version"]) {
            return Ok(Installer::Uv(vec!["uv".into()]));
        }
        let python = python()?;
        if succeeds(&python, &["-m", "uv", "--version"]) {
            return Ok(Installer::Uv(vec![python, "-m".into(), "uv".into()]));
        }
        if chosen == "uv" {
            return Err(PypiError::Start {
                command: "uv --version".into(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "MCPEVOL_INSTALLER=uv, but uv is neither on PATH nor importable (`pip install uv`)",
                ),
            });
        }
        tracing::warn!("uv was not found (install it with `pip install uv`); installing with pip");
        Ok(Installer::Pip { python })
    }

    /// Makes the environment with `interpreter`, else the default one.
    fn make_venv(&self, venv: &Path, interpreter: Option<&str>) -> Result<(), PypiError> {
        let venv_arg = venv.display().to_string();
        match self {
            Installer::Uv(uv) => {
                let python = match interpreter {
                    Some(p) => p.to_string(),
                    None => python()?,
                };
                let mut args: Vec<&str> = uv[1..].iter().map(String::as_str).collect();
                args.extend([
                    "venv",
                    "--quiet",
                    "--relocatable",
                    "--python",
                    &python,
                    &venv_arg,
                ]);
                run(&uv[0], &args)
            }
            Installer::Pip { python } => {
                run(interpreter.unwrap_or(python), &["-m", "venv", &venv_arg])
            }
        }
    }

    /// Installs `requirement` resolved as `resolution` says: uv moves only the relaxed
    /// packages' cut-offs; pip, which has one cut-off for all, moves it to the latest.
    fn install(
        &self,
        venv: &Path,
        requirement: &str,
        resolution: &Resolution,
    ) -> Result<(), PypiError> {
        let python = venv.join("bin").join("python").display().to_string();
        match self {
            Installer::Uv(uv) => {
                let mut args: Vec<String> = uv[1..].to_vec();
                args.extend(
                    [
                        "pip",
                        "install",
                        "--quiet",
                        "--compile-bytecode",
                        "--python",
                    ]
                    .map(String::from),
                );
                args.push(python);
                if let Some(cutoff) = &resolution.cutoff {
                    args.extend(["--exclude-newer".into(), cutoff.clone()]);
                }
                let today = (chrono::Utc::now() + chrono::Duration::days(1))
                    .format("%Y-%m-%dT%H:%M:%SZ")
                    .to_string();
                for r in &resolution.relaxed {
                    let until = r.cutoff.as_deref().unwrap_or(&today);
                    args.extend([
                        "--exclude-newer-package".into(),
                        format!("{}={until}", r.package),
                    ]);
                }
                args.push(requirement.to_string());
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                run(&uv[0], &args)
            }
            Installer::Pip { .. } => {
                let mut args = vec![
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ];
                let cutoff = match resolution
                    .relaxed
                    .iter()
                    .map(|r| &r.cutoff)
                    .max_by(|a, b| a.is_none().cmp(&b.is_none()).then(a.cmp(b)))
                {
                    Some(None) => None,
                    Some(Some(later)) => Some(later.as_str()),
                    None => resolution.cutoff.as_deref(),
                };
                if let Some(cutoff) = cutoff {
                    if pip_resolves_by_date(&python) {
                        args.extend([PIP_CUTOFF_FLAG, cutoff]);
                    } else {
                        tracing::warn!(
                            "this pip cannot resolve as of a date ({PIP_CUTOFF_FLAG}, pip 26 and later) and could not be upgraded; {requirement} gets today's dependencies, which may be too new for it"
                        );
                    }
                }
                args.push(requirement);
                run(&python, &args)
            }
        }
    }

    /// The environment's packages as `name==version` lines (empty when the listing fails: it
    /// is a record, not a step of the install).
    fn freeze(&self, venv: &Path) -> Vec<String> {
        let python = venv.join("bin").join("python").display().to_string();
        let out = match self {
            Installer::Uv(uv) => Command::new(&uv[0])
                .args(&uv[1..])
                .args(["pip", "freeze", "--python", &python])
                .output(),
            Installer::Pip { .. } => Command::new(&python)
                .args(["-m", "pip", "freeze", "--disable-pip-version-check"])
                .output(),
        };
        out.ok()
            .filter(|o| o.status.success())
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Whether the venv's pip knows `--uploaded-prior-to`, upgrading it first when it does not
/// (a venv's pip is the one its Python bundles, often older than the option).
fn pip_resolves_by_date(python: &str) -> bool {
    let knows = || {
        Command::new(python)
            .args(["-m", "pip", "install", "--help"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(PIP_CUTOFF_FLAG))
    };
    if knows() {
        return true;
    }
    let upgrade = [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--upgrade",
        "pip",
    ];
    if let Err(e) = run(python, &upgrade) {
        tracing::warn!("upgrading pip failed: {e}");
        return false;
    }
    knows()
}

/// The interpreter new environments are made with.
pub fn python() -> Result<String, PypiError> {
    if let Some(p) = std::env::var_os("MCPEVOL_PYTHON") {
        return Ok(p.to_string_lossy().into_owned());
    }
    ["python3", "python"]
        .into_iter()
        .find(|p| succeeds(p, &["--version"]))
        .map(str::to_string)
        .ok_or(PypiError::NoPython)
}

/// An interpreter of at least `major.minor`, for a release the default one is too old for:
/// `python3.13` (then newer) on PATH, else one that pyenv installed (its shims run only the
/// versions pyenv was told to, so its `versions/` folder is looked in).
fn python_at_least((major, minor): (u32, u32)) -> Option<String> {
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    let installed: Vec<PathBuf> = pyenv
        .and_then(|root| fs::read_dir(root.join("versions")).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    (minor..minor + 8).find_map(|m| {
        let name = format!("python{major}.{m}");
        if succeeds(&name, &["--version"]) {
            return Some(name);
        }
        installed
            .iter()
            .map(|v| v.join("bin").join(&name))
            .map(|p| p.display().to_string())
            .find(|p| succeeds(p, &["--version"]))
    })
}

fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run(program: &str, args: &[&str]) -> Result<(), PypiError> {
    let command = format!("{program} {}", args.join(" "));
    let out = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| PypiError::Start {
            command: command.clone(),
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    Err(PypiError::Failed {
        command,
        status: out.status.to_string(),
        stderr_tail: lines[lines.len().saturating_sub(12)..].join("\n"),
    })
}

/// Fills a new workspace folder from an install: the package's own files, and `.venv` linked to
/// the shared environment. Returns the launch settings.
pub fn fill_workdir(installed: &Installed, workdir: &Path) -> Result<LaunchConfig, PypiError> {
    copy_sources(&installed.package, workdir, |_| false)?;
    link_venv(installed, workdir)?;
    let record = workdir.join(".mcpevol").join(RESOLUTION_FILE);
    fs::create_dir_all(workdir.join(".mcpevol")).map_err(io(workdir))?;
    let text = toml::to_string(&installed.resolution).expect("a resolution serializes");
    fs::write(&record, text).map_err(io(&record))?;
    Ok(installed.launch.clone())
}

/// `workdir/.venv`, a link to the shared environment.
pub fn link_venv(installed: &Installed, workdir: &Path) -> Result<(), PypiError> {
    let target = installed.venv.canonicalize().map_err(io(&installed.venv))?;
    let link = workdir.join(VENV_LINK);
    std::os::unix::fs::symlink(target, &link).map_err(io(&link))
}

/// A folder with a `pyproject.toml`: its files (no environment, caches or builds) copied, the
/// package installed in a shared environment, and launch settings from its console scripts
/// with the folder that holds its modules (`.` or `src`) on the module path.
pub fn materialize_folder(folder: &Path, workdir: &Path) -> Result<LaunchConfig, PypiError> {
    let installed = install_folder(folder, &cache_root())?;
    copy_sources(folder, workdir, is_not_source)?;
    link_venv(&installed, workdir)?;
    let src_root = source_root(&walk_rel(&installed.package), workdir);
    let mut launch = installed.launch.clone();
    launch
        .env
        .insert("PYTHONPATH".to_string(), src_root.to_string());
    Ok(launch)
}

/// A Python package folder that already has its environment (`.venv`) and launch settings
/// (`.mcpevol/server.toml`), as the fixtures do: its sources copied, the settings kept, the
/// environment linked.
pub fn materialize_plain_folder(folder: &Path, workdir: &Path) -> Result<(), PypiError> {
    copy_sources(folder, workdir, is_not_source)?;
    let mut settings = folder.join(mcpevol_oracle::server::launch::CONFIG_PATH);
    // An install's package folder: its launch settings are beside it.
    let beside = folder.join("../launch.toml");
    if !settings.is_file() && beside.is_file() {
        settings = beside;
    }
    if settings.is_file() {
        let to = workdir.join(mcpevol_oracle::server::launch::CONFIG_PATH);
        let parent = to.parent().expect("the settings live in a folder");
        fs::create_dir_all(parent).map_err(io(parent))?;
        fs::copy(&settings, &to).map_err(io(&settings))?;
    }
    let venv = folder.join(VENV_LINK);
    if venv.exists() {
        let target = venv.canonicalize().map_err(io(&venv))?;
        let link = workdir.join(VENV_LINK);
        std::os::unix::fs::symlink(target, &link).map_err(io(&link))?;
    }
    Ok(())
}

/// Folders of a Python project that are not its sources: environments, caches, builds,
/// history (any dot folder).
fn is_not_source(name: &str) -> bool {
    name.starts_with('.')
        || ["venv", "__pycache__", "build", "dist", "node_modules"].contains(&name)
        || name.ends_with(".egg-info")
}

/// Copies the plain files and folders under `from` (no links), leaving out folders `skip`
/// names.
fn copy_sources(from: &Path, to: &Path, skip: fn(&str) -> bool) -> Result<(), PypiError> {
    let walk = walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !(e.file_type().is_dir() && skip(&e.file_name().to_string_lossy()))
        });
    for entry in walk {
        let entry = entry.map_err(|e| PypiError::Io {
            path: from.to_path_buf(),
            source: e.into(),
        })?;
        let relative = entry.path().strip_prefix(from).expect("under its root");
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).map_err(io(&target))?;
        } else if entry.file_type().is_file() {
            fs::copy(entry.path(), &target).map_err(io(entry.path()))?;
        }
    }
    Ok(())
}

/// Where a project keeps the modules its install holds: `src` when they are there and not at
/// the top (the "src layout"), else `.`. The server's module path starts there, so that the
/// workspace's copy is what runs.
fn source_root(tops: &[String], workdir: &Path) -> &'static str {
    let modules: Vec<&String> = tops
        .iter()
        .filter(|t| !t.starts_with('.') && !t.ends_with(".dist-info"))
        .collect();
    let in_src = |t: &&String| workdir.join("src").join(t.as_str()).exists();
    let at_top = |t: &&String| workdir.join(t.as_str()).exists();
    if !modules.is_empty() && modules.iter().all(in_src) && !modules.iter().any(at_top) {
        "src"
    } else {
        "."
    }
}

/// The top-level entries of an install's package folder.
fn walk_rel(package: &Path) -> Vec<String> {
    let mut tops: Vec<String> = fs::read_dir(package)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    tops.sort();
    tops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pypi_spec_needs_a_name_and_an_exact_version() {
        let spec = PypiSpec::parse("pypi:mcp-server-time==2025.9.25")
            .unwrap()
            .unwrap();
        assert_eq!(spec.name, "mcp-server-time");
        assert_eq!(spec.version, "2025.9.25");
        assert!(PypiSpec::parse("mcp-server-time").is_none());
        for bad in [
            "pypi:mcp-server-time",
            "pypi:==1",
            "pypi:x==",
            "pypi:x>=1.0",
            "pypi:a b==1",
        ] {
            let err = PypiSpec::parse(bad).unwrap().unwrap_err();
            assert!(
                err.to_string().contains("pypi:NAME==VERSION"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn a_src_layout_puts_src_first_on_the_module_path() {
        let work = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(work.path().join("src/tinysrv")).unwrap();
        let tops = [".venv".to_string(), "tinysrv".to_string()];
        assert_eq!(source_root(&tops, work.path()), "src");
        std::fs::create_dir_all(work.path().join("flat")).unwrap();
        assert_eq!(source_root(&["flat".to_string()], work.path()), ".");
    }

    #[test]
    fn names_are_normalized_as_pep_503_says() {
        assert_eq!(normalize("MCP_Server.Time"), "mcp-server-time");
        assert_eq!(normalize("a--b__c"), "a-b-c");
    }

    #[test]
    fn record_lines_give_only_the_packages_own_files() {
        let record = "../../../bin/mcp-server-time,sha256=x,299\n\
            mcp_server_time-1.0.dist-info/RECORD,,\n\
            mcp_server_time/__init__.py,sha256=y,500\n\
            mcp_server_time/__pycache__/server.cpython-311.pyc,,\n\
            \"odd,name.py\",sha256=z,1\n\
            top_level_module.py,sha256=w,1\n\
            extra.pth,sha256=v,1\n";
        let kept: Vec<String> = record
            .lines()
            .filter_map(record_path_of)
            .filter(|p| is_own_source(p))
            .collect();
        assert_eq!(
            kept,
            [
                "mcp_server_time/__init__.py",
                "odd,name.py",
                "top_level_module.py"
            ]
        );
    }

    #[test]
    fn console_scripts_become_a_python_runner_of_the_packages_module() {
        let eps = "[console_scripts]\nother = other:run\nmcp-server-time = mcp_server_time:main\n\n[gui_scripts]\nx = y:z\n";
        let files = vec!["mcp_server_time/__init__.py".to_string()];
        let launch = launch_from_entry_points(eps, &files, ".");
        assert_eq!(launch.command, VENV_PYTHON);
        assert_eq!(
            launch.args,
            [
                "-c",
                "import sys; from mcp_server_time import main; sys.exit(main())"
            ]
        );
        assert_eq!(launch.env["PYTHONPATH"], ".");
        assert_eq!(
            runner("pkg.cli:app.run [extra]"),
            "import sys; from pkg.cli import app; sys.exit(app.run())"
        );
        let no_scripts = launch_from_entry_points("", &["srv/__main__.py".to_string()], ".");
        assert_eq!(no_scripts.args, ["-m", "srv"]);
    }
}
