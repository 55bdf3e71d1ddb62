//! What a sandboxed server may open: its scratch folder (the copy it runs in, HOME, TMPDIR,
//! `{tmp}`), its runtime (the program's install and, for Python, the environment and the base
//! interpreter), the package's installed dependencies, the system's programs and shared
//! libraries, and a short list of system files every runtime reads (certificates, time zones,
//! name resolution, fonts). Nothing else: not the user's home, other workspaces, the mcpevol
//! checkout, `/etc/shadow`, or other processes.
//!
//! The list is computed here, in the parent, from the launch; [`super::landlock`] enforces it.
//! Paths are kept as the canonical paths they resolve to, since that is what the kernel checks.

use std::path::{Path, PathBuf};

/// What a server may do under a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    /// Open files and list folders.
    Read,
    /// Read, and run the programs found there.
    ReadExec,
    /// Anything: create, write, remove, run.
    Full,
}

/// One path and what may be done under it (the path itself and everything below it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub path: PathBuf,
    pub access: Access,
}

/// The system's programs and libraries (read and run). Merged-/usr systems link the top-level
/// ones into `/usr`; each is kept where it exists.
const SYSTEM_PROGRAMS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// System files and folders every runtime may read: the dynamic loader's cache, certificates,
/// time zones, name resolution (users and groups, hosts), fonts and the MIME table, the
/// browser's settings. No secret lives here (`/etc/shadow`, `/etc/ssh` and the rest of `/etc`
/// are not among them).
const SYSTEM_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
    "/etc/pki",
    "/etc/crypto-policies",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/mime.types",
    "/etc/os-release",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/chromium",
    "/etc/chromium.d",
    "/etc/xdg",
    "/var/cache/fontconfig",
    "/sys",
];

/// `/etc` entries whose names start so are a runtime's own settings (Debian's
/// `/etc/python3.11`, `/etc/node`): read, as the runtime's install is.
const RUNTIME_SETTINGS: &[&str] = &["python", "node", "npm"];

/// Devices a server may open for reading and writing, and for reading.
const DEVICES_RW: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];
const DEVICES_R: &[&str] = &["/dev/random", "/dev/urandom"];

/// Where a server's files are, as the sandbox lays them out.
pub struct Layout<'a> {
    /// The scratch folder: read; the parts below in `writable` are fully open.
    pub scratch: &'a Path,
    pub writable: &'a [PathBuf],
    /// The copy of the package the server runs in.
    pub cwd: &'a Path,
    /// The program as the launch names it (`node`, `.venv/bin/python`, an absolute path).
    pub program: &'a str,
    /// The launch's arguments and variable values, filled in.
    pub settings: Vec<String>,
    /// The PATH the server gets.
    pub path: Option<std::ffi::OsString>,
}

/// Everything a server of `layout` may open, and how.
pub fn grants(layout: &Layout) -> Vec<Grant> {
    let mut out = Vec::new();
    let mut add = |path: &Path, access: Access| {
        if let Ok(path) = path.canonicalize() {
            out.push(Grant { path, access });
        }
    };
    for dir in SYSTEM_PROGRAMS {
        add(Path::new(dir), Access::ReadExec);
    }
    for file in SYSTEM_FILES {
        add(Path::new(file), Access::Read);
    }
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if RUNTIME_SETTINGS.iter().any(|p| name.starts_with(p)) {
                add(&entry.path(), Access::Read);
            }
        }
    }
    for dev in DEVICES_RW {
        add(Path::new(dev), Access::Full);
    }
    for dev in DEVICES_R {
        add(Path::new(dev), Access::Read);
    }
    add(layout.scratch, Access::ReadExec);
    for dir in layout.writable {
        add(dir, Access::Full);
    }
    for install in dependency_installs(layout.scratch, layout.cwd) {
        add(&install, Access::ReadExec);
    }
    for runtime in runtimes(layout) {
        add(&runtime, Access::ReadExec);
    }
    for dir in layout.path.iter().flat_map(std::env::split_paths) {
        if dir.is_absolute() && !too_broad(&dir) {
            add(&dir, Access::ReadExec);
        }
    }
    // A file or folder the launch settings name (`--db-path /data/x.db`) was chosen by the
    // user: it may be read, not written.
    for setting in &layout.settings {
        let path = Path::new(setting);
        if path.is_absolute() && path.exists() && !too_broad(path) {
            add(path, Access::Read);
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path).then(a.access.cmp(&b.access)));
    out.dedup();
    out
}

/// The installs the copy's dependency links lead to: `node_modules` and `.venv` in the copy
/// and just above it (linked by the sandbox), and, where their entries are links themselves
/// (a workspace sharing an install), the `node_modules` folders those lead into.
fn dependency_installs(scratch: &Path, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut links: Vec<PathBuf> = Vec::new();
    for name in ["node_modules", ".venv"] {
        links.push(cwd.join(name));
    }
    links.push(scratch.join("node_modules"));
    // Nested packages of the copy (a monorepo's, a bundled sub-package) have links of their own.
    for entry in walkdir::WalkDir::new(cwd)
        .max_depth(4)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules" || e.depth() == 0)
        .flatten()
    {
        if entry.depth() > 0 && entry.path_is_symlink() && entry.file_name() == "node_modules" {
            links.push(entry.path().to_path_buf());
        }
    }
    links.sort();
    links.dedup();
    for link in links {
        let Ok(target) = link.canonicalize() else {
            continue;
        };
        if !target.is_dir() || target.starts_with(scratch) {
            continue;
        }
        out.extend(linked_entries(&target));
        out.push(target);
    }
    out.retain(|p| !too_broad(p));
    out
}

/// Where the entries of an install that are links lead (one level, and one more under `@scope`
/// folders): the `node_modules` folder holding each target, or the target itself.
fn linked_entries(install: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let visit = |dir: &Path, depth: usize, out: &mut Vec<PathBuf>| -> Vec<PathBuf> {
        let mut scopes = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return scopes;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                if let Ok(target) = path.canonicalize() {
                    let holder = target
                        .ancestors()
                        .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
                        .map(Path::to_path_buf)
                        .unwrap_or(target);
                    out.push(holder);
                }
            } else if kind.is_dir()
                && depth == 0
                && entry.file_name().to_string_lossy().starts_with('@')
            {
                scopes.push(path);
            }
        }
        scopes
    };
    for scope in visit(install, 0, &mut out) {
        visit(&scope, 1, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The installs of the program the launch runs: the folder above its `bin/` (node's or
/// Python's prefix, wherever it is: `/usr`, `~/.nvm/...`, `~/.pyenv/versions/...`), for a
/// script its interpreter's, and for a Python environment its base interpreter's (`home` in
/// `pyvenv.cfg`).
fn runtimes(layout: &Layout) -> Vec<PathBuf> {
    let named = Path::new(layout.program);
    let program = if named.is_absolute() {
        Some(named.to_path_buf())
    } else if layout.program.contains('/') {
        Some(layout.cwd.join(named))
    } else {
        on_path(layout.program, layout.path.as_deref())
    };
    let Some(program) = program else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut programs = vec![program.clone()];
    if let Some(interpreter) = shebang(&program, layout.path.as_deref()) {
        programs.push(interpreter);
    }
    for program in &programs {
        // The environment a program lives in (`.venv/bin/python` is a link out of it).
        if let Some(env) = program.parent().and_then(Path::parent)
            && let Some(home) = venv_home(env)
        {
            out.extend(env.canonicalize().ok());
            out.extend(prefix_of(&home.join("python")));
        }
        out.extend(program.canonicalize().ok().and_then(|p| prefix_of(&p)));
    }
    out.retain(|p| !too_broad(p));
    out
}

/// The install a program belongs to: the folder holding its `bin/`, or its own folder.
fn prefix_of(program: &Path) -> Option<PathBuf> {
    let dir = program.parent()?;
    let prefix = if dir.file_name().is_some_and(|n| n == "bin") {
        dir.parent()?
    } else {
        dir
    };
    (!too_broad(prefix))
        .then(|| prefix.to_path_buf())
        .or_else(|| Some(dir.to_path_buf()))
}

/// `home` of a Python environment's `pyvenv.cfg`: the base interpreter's folder.
fn venv_home(env: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(env.join("pyvenv.cfg")).ok()?;
    text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "home").then(|| PathBuf::from(value.trim()))
    })
}

/// The interpreter a script's `#!` line names (through `env`, looked up on PATH).
fn shebang(program: &Path, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|b| *b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if Path::new(first).file_name().is_some_and(|n| n == "env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        return on_path(name, path);
    }
    Some(PathBuf::from(first))
}

fn on_path(name: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A path whose grant would open far more than a server needs: the root, a top-level folder
/// such as `/home` or `/tmp`, the user's home or anything above it.
fn too_broad(path: &Path) -> bool {
    let Ok(path) = path.canonicalize() else {
        return true;
    };
    if path.components().count() <= 2 && !SYSTEM_PROGRAMS.iter().any(|d| path == Path::new(d)) {
        return true;
    }
    let homes = [std::env::var_os("HOME").map(PathBuf::from), user_home()];
    homes
        .into_iter()
        .flatten()
        .filter_map(|h| h.canonicalize().ok())
        .any(|home| home.starts_with(&path))
}

/// The home folder the user database gives the user we run as (HOME may have been changed).
fn user_home() -> Option<PathBuf> {
    let user = nix::unistd::User::from_uid(nix::unistd::geteuid()).ok()??;
    Some(user.dir)
}

#[cfg(test)]
#[path = "reads_tests.rs"]
mod tests;
