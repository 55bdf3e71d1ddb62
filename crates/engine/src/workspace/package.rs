//! Materializing a server package (a folder or an npm spec) into a new workspace folder.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use walkdir::WalkDir;

use super::WorkspaceError;

/// Where a package comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Folder(PathBuf),
    /// `"name@version"` or `"name"`.
    Npm(String),
    /// `pypi:NAME==VERSION`.
    Pypi(super::pypi::PypiSpec),
}

impl Source {
    /// An existing folder is a [`Source::Folder`], `pypi:NAME==VERSION` a PyPI release;
    /// anything else is an npm spec.
    pub fn parse(arg: &str) -> Result<Source, WorkspaceError> {
        if let Some(spec) = super::pypi::PypiSpec::parse(arg) {
            return Ok(Source::Pypi(spec?));
        }
        let path = Path::new(arg);
        Ok(if path.is_dir() {
            Source::Folder(path.to_path_buf())
        } else {
            Source::Npm(arg.to_string())
        })
    }
}

/// Copies the package's files into `workdir` (created; it must not exist or be empty),
/// leaving out `node_modules/` and `.git/`, and makes its runtime dependencies resolvable from
/// `workdir/node_modules`.
pub fn materialize(source: &Source, workdir: &Path) -> Result<(), WorkspaceError> {
    prepare_workdir(workdir)?;
    match source {
        // A folder with a pyproject.toml and no package.json is a Python package.
        Source::Folder(folder)
            if !folder.join("package.json").is_file()
                && folder.join("pyproject.toml").is_file() =>
        {
            let launch = super::pypi::materialize_folder(folder, workdir)?;
            write_launch(workdir, &launch)
        }
        // A Python package folder without pyproject.toml (its environment and launch settings
        // beside it): its files, its launch settings, its environment linked.
        Source::Folder(folder)
            if !folder.join("package.json").is_file()
                && mcpevol_anchor::is_python_package(folder) =>
        {
            super::pypi::materialize_plain_folder(folder, workdir)?;
            Ok(())
        }
        Source::Pypi(spec) => {
            let installed = super::pypi::install_release(spec, &super::pypi::cache_root())?;
            let launch = super::pypi::fill_workdir(&installed, workdir)?;
            write_launch(workdir, &launch)
        }
        Source::Folder(folder) => materialize_folder(folder, workdir),
        Source::Npm(spec) => materialize_npm(spec, workdir).map_err(|e| match e {
            e @ WorkspaceError::Npm { .. } => e,
            e => WorkspaceError::NpmStep {
                spec: spec.clone(),
                source: Box::new(e),
            },
        }),
    }
}

/// Writes the launch settings a Python install found, where `init` reads them.
fn write_launch(
    workdir: &Path,
    launch: &mcpevol_oracle::server::LaunchConfig,
) -> Result<(), WorkspaceError> {
    let path = workdir.join(mcpevol_oracle::server::launch::CONFIG_PATH);
    let parent = path.parent().expect("the settings live in a folder");
    fs::create_dir_all(parent).map_err(WorkspaceError::io(parent))?;
    let text = toml::to_string(launch).expect("launch settings serialize");
    fs::write(&path, text).map_err(WorkspaceError::io(&path))
}

fn prepare_workdir(workdir: &Path) -> Result<(), WorkspaceError> {
    match fs::read_dir(workdir) {
        Ok(mut entries) => match entries.next() {
            Some(_) => Err(WorkspaceError::NotEmpty(workdir.to_path_buf())),
            None => Ok(()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(workdir).map_err(WorkspaceError::io(workdir))
        }
        Err(e) => Err(WorkspaceError::Io {
            path: workdir.to_path_buf(),
            source: e,
        }),
    }
}

fn materialize_folder(folder: &Path, workdir: &Path) -> Result<(), WorkspaceError> {
    if !folder.join("package.json").is_file() {
        return Err(WorkspaceError::NoPackageJson(folder.to_path_buf()));
    }
    copy_package_files(folder, workdir)?;
    let modules = workdir.join("node_modules");
    let own = folder.join("node_modules");
    let mut resolved = false;
    if own.is_dir() {
        copy_tree(&own, &modules)?;
        resolved = true;
    }
    let real = folder.canonicalize().map_err(WorkspaceError::io(folder))?;
    // Node looks for `node_modules` in every folder above the package: the hoisted install the
    // package sits in, or a monorepo's shared one. Nearest first: an entry already present
    // shadows farther ones, as in node's lookup.
    for ancestor in real.ancestors().skip(1) {
        let installed = ancestor.join("node_modules");
        if ancestor.file_name() != Some(OsStr::new("node_modules")) && installed.is_dir() {
            link_installed(&installed, &real, &modules)?;
            resolved = true;
        }
    }
    if !resolved && has_dependencies(workdir)? {
        npm_install(workdir)?;
    }
    Ok(())
}

fn materialize_npm(spec: &str, workdir: &Path) -> Result<(), WorkspaceError> {
    let scratch = tempfile::tempdir().map_err(WorkspaceError::io(std::env::temp_dir()))?;
    let dest = scratch.path().join("pack");
    fs::create_dir(&dest).map_err(WorkspaceError::io(&dest))?;
    let dest_arg = dest.to_string_lossy().into_owned();
    // Run from an empty folder so that no local project or .npmrc changes what is packed.
    let cwd = scratch.path().join("cwd");
    fs::create_dir(&cwd).map_err(WorkspaceError::io(&cwd))?;
    run_npm(
        &[
            "pack",
            spec,
            "--pack-destination",
            &dest_arg,
            "--ignore-scripts",
        ],
        &cwd,
    )?;
    let tarball = fs::read_dir(&dest)
        .map_err(WorkspaceError::io(&dest))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension() == Some(OsStr::new("tgz")))
        .ok_or_else(|| WorkspaceError::Npm {
            spec: spec.to_string(),
            detail: format!("`npm pack` wrote no .tgz into {}", dest.display()),
        })?;
    extract_tarball(&tarball, workdir).map_err(|e| WorkspaceError::Npm {
        spec: spec.to_string(),
        detail: format!("cannot extract {}: {e}", tarball.display()),
    })?;
    if has_dependencies(workdir)? {
        npm_install(workdir)?;
    }
    Ok(())
}

/// Extracts a package tarball into `workdir`, dropping its top folder (`package/` for npm,
/// though some old tarballs use another name). Links and unsafe paths are skipped.
fn extract_tarball(tarball: &Path, workdir: &Path) -> io::Result<()> {
    let file = fs::File::open(tarball)?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries()? {
        let mut entry = entry?;
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            continue;
        }
        let path = entry.path()?.into_owned();
        let mut components = path.components();
        components.next();
        let rest: PathBuf = components.collect();
        let safe = rest.components().all(|c| matches!(c, Component::Normal(_)));
        if rest.as_os_str().is_empty() || !safe || is_excluded(&rest) {
            continue;
        }
        let target = workdir.join(&rest);
        if kind.is_dir() {
            fs::create_dir_all(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        entry.unpack(&target)?;
    }
    Ok(())
}

fn is_excluded(relative: &Path) -> bool {
    relative
        .components()
        .any(|c| c.as_os_str() == ".git" || c.as_os_str() == "node_modules")
}

/// Copies the package's own files: no `node_modules`, no `.git`, and no symlinks, which could
/// point anywhere and would be committed as links.
fn copy_package_files(from: &Path, to: &Path) -> Result<(), WorkspaceError> {
    copy_dir(from, to, false)
}

/// Copies a `node_modules` folder as it is, its links included: `.bin` entries and
/// workspace packages are relative links that still resolve inside the copy.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), WorkspaceError> {
    copy_dir(from, to, true)
}

/// The one copy walk: `installed` copies a dependency tree whole, links included; otherwise
/// `node_modules`, `.git` and links are left out.
fn copy_dir(from: &Path, to: &Path, installed: bool) -> Result<(), WorkspaceError> {
    let walk = WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            installed
                || e.depth() == 0
                || (e.file_name() != "node_modules" && e.file_name() != ".git")
        });
    for entry in walk {
        let entry = entry.map_err(|e| walk_error(from, e))?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .expect("walkdir stays under its root");
        let target = to.join(relative);
        let kind = entry.file_type();
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(WorkspaceError::io(&target))?;
        } else if kind.is_symlink() {
            if installed {
                let link = fs::read_link(entry.path()).map_err(WorkspaceError::io(entry.path()))?;
                std::os::unix::fs::symlink(&link, &target).map_err(WorkspaceError::io(&target))?;
            }
        } else if kind.is_file() {
            fs::copy(entry.path(), &target).map_err(WorkspaceError::io(entry.path()))?;
        }
    }
    Ok(())
}

/// Links every package of an ancestor `node_modules` (scoped ones one by one) that `modules`
/// lacks, so that the copy resolves what the installed package resolved, with no network.
fn link_installed(installed: &Path, package: &Path, modules: &Path) -> Result<(), WorkspaceError> {
    fs::create_dir_all(modules).map_err(WorkspaceError::io(modules))?;
    for entry in read_dir_sorted(installed)? {
        let name = entry
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with('.') {
            continue;
        }
        if name.starts_with('@') && entry.is_dir() {
            for scoped in read_dir_sorted(&entry)? {
                let scoped_name = scoped.file_name().unwrap_or_default();
                link_one(&scoped, package, &modules.join(&name).join(scoped_name))?;
            }
        } else {
            link_one(&entry, package, &modules.join(&name))?;
        }
    }
    Ok(())
}

fn link_one(entry: &Path, package: &Path, link: &Path) -> Result<(), WorkspaceError> {
    // The package itself would shadow nothing useful and would make the copy import itself.
    if entry == package || fs::symlink_metadata(link).is_ok() {
        return Ok(());
    }
    if let Some(parent) = link.parent() {
        fs::create_dir_all(parent).map_err(WorkspaceError::io(parent))?;
    }
    std::os::unix::fs::symlink(entry, link).map_err(WorkspaceError::io(link))
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>, WorkspaceError> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(WorkspaceError::io(dir))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(WorkspaceError::io(dir))?;
    paths.sort();
    Ok(paths)
}

fn has_dependencies(workdir: &Path) -> Result<bool, WorkspaceError> {
    let path = workdir.join("package.json");
    let text = fs::read_to_string(&path).map_err(WorkspaceError::io(&path))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| WorkspaceError::Io {
        path: path.clone(),
        source: io::Error::new(io::ErrorKind::InvalidData, e),
    })?;
    Ok(json
        .get("dependencies")
        .and_then(|d| d.as_object())
        .is_some_and(|d| !d.is_empty()))
}

/// `npm install` of the runtime dependencies. npm writes or rewrites `package-lock.json`,
/// which would then be committed as if the package had changed; it is put back as it was.
fn npm_install(workdir: &Path) -> Result<(), WorkspaceError> {
    let lock = workdir.join("package-lock.json");
    let before = fs::read(&lock).ok();
    let mut args = vec![
        "install",
        "--omit=dev",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
    ];
    if before.is_none() {
        args.push("--no-package-lock");
    }
    let result = run_npm(&args, workdir);
    match before {
        Some(bytes) => fs::write(&lock, bytes).map_err(WorkspaceError::io(&lock))?,
        None if lock.exists() => fs::remove_file(&lock).map_err(WorkspaceError::io(&lock))?,
        None => {}
    }
    result
}

fn run_npm(args: &[&str], cwd: &Path) -> Result<(), WorkspaceError> {
    let command = format!("npm {}", args.join(" "));
    let output = Command::new("npm")
        .args(args)
        .current_dir(cwd)
        .output()
        .map_err(|source| WorkspaceError::CommandStart {
            command: command.clone(),
            cwd: cwd.to_path_buf(),
            source,
        })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let stderr_tail = lines[lines.len().saturating_sub(10)..].join("\n");
    Err(WorkspaceError::CommandFailed {
        command,
        cwd: cwd.to_path_buf(),
        status: output.status.to_string(),
        stderr_tail,
    })
}

fn walk_error(root: &Path, e: walkdir::Error) -> WorkspaceError {
    let path = e.path().unwrap_or(root).to_path_buf();
    WorkspaceError::Io {
        path,
        source: e.into(),
    }
}
