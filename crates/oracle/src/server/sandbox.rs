//! The sandbox a spawned server runs in. Its code may be written by a model, so:
//!
//! - it gets only PATH, a scratch HOME and TMPDIR, and the variables its launch settings name,
//!   never the user's keys and tokens;
//! - it runs from a scratch copy of its package (`node_modules` linked), so that whatever it
//!   writes beside itself never reaches the package, nor a workspace's next version;
//! - with isolation on (the default, `--sandbox off` opts out), it runs in namespaces of its
//!   own ([`super::namespace`]): no network, and a read-only file system but for its scratch
//!   folder. Where the machine cannot provide them, the CLI warns and runs it without;
//! - should mcpevol be killed, the server dies with it, and the next run cleans up the rest.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use walkdir::WalkDir;

use super::landlock;
use super::namespace::{self, Guards, IsolationPlan, Layer};
use super::reads;

/// Variables a server may see from our environment; everything else (API keys, tokens) is
/// withheld. HOME and TMPDIR are not among them: the server gets scratch ones.
const INHERITED_ENV: &[&str] = &["PATH"];

/// Folders never copied: history, and dependencies (linked instead).
const HISTORY: &str = ".git";
const DEPENDENCIES: &str = "node_modules";
/// A Python package's environment (a link to a shared one, or a folder): linked, never copied.
const ENVIRONMENT: &str = ".venv";
/// Python's compiled-module caches: never copied, the server compiles what it needs.
const BYTECODE: &str = "__pycache__";

/// Scratch folders are named `mcpevol-server-<our pid>-<random>` in the temp folder.
const SCRATCH_PREFIX: &str = "mcpevol-server-";

/// Whether servers are isolated (namespaces and the guards on top): on unless the user opts out.
static ISOLATE: AtomicBool = AtomicBool::new(true);

/// What the machine can do, probed once per process.
static PROBED: OnceLock<Probed> = OnceLock::new();

/// Names layers to leave off (`landlock,pid,seccomp`): for the checks that show each guard is
/// what stops an attack (RELIABILITY.md) and for measuring what each costs; never for real use.
/// Every layer left off is named in the warning.
pub const WITHOUT_VAR: &str = "MCPEVOL_SANDBOX_WITHOUT";

/// What this machine lets a server be confined by.
struct Probed {
    /// The namespaces (network, mounts, user), or why not.
    namespaces: Result<(), namespace::Refused>,
    /// The layers on top that work here.
    layers: Vec<Layer>,
    /// The layers that do not, and why.
    missing: Vec<(Layer, String)>,
}

fn probe() -> Probed {
    let without: Vec<String> = std::env::var(WITHOUT_VAR)
        .unwrap_or_default()
        .split(',')
        .map(|w| w.trim().to_ascii_lowercase())
        .collect();
    let (mut layers, mut missing) = (Vec::new(), Vec::new());
    for layer in Layer::ALL {
        if without.iter().any(|w| w == layer.name()) {
            missing.push((layer, format!("left off by {WITHOUT_VAR}")));
        } else {
            layers.push(layer);
        }
    }
    let namespaces = match settle(true, &mut layers, &mut missing) {
        Ok(()) => Ok(()),
        Err(refused) => {
            // Landlock and seccomp may still work without namespaces; the PID namespace needs
            // the user namespace.
            if let Some(i) = layers.iter().position(|l| *l == Layer::Pid) {
                layers.remove(i);
                missing.push((Layer::Pid, "it needs the namespaces".into()));
            }
            if let Err(why) = settle(false, &mut layers, &mut missing) {
                for layer in layers.drain(..) {
                    missing.push((layer, why.to_string()));
                }
            }
            Err(refused)
        }
    };
    Probed {
        namespaces,
        layers,
        missing,
    }
}

/// Probes with `layers`, leaving off each layer whose own step the machine refuses, until the
/// rest works or a step no layer owns is refused.
fn settle(
    namespaces: bool,
    layers: &mut Vec<Layer>,
    missing: &mut Vec<(Layer, String)>,
) -> Result<(), namespace::Refused> {
    loop {
        match namespace::probe(namespaces, layers) {
            Ok(()) => return Ok(()),
            Err(namespace::Refused::Step { step, error })
                if step.layer().is_some_and(|l| layers.contains(&l)) =>
            {
                let layer = step.layer().expect("matched above");
                layers.retain(|l| *l != layer);
                missing.push((layer, format!("{} failed: {error}", step.describe())));
            }
            Err(refused) => return Err(refused),
        }
    }
}

fn probed() -> &'static Probed {
    PROBED.get_or_init(probe)
}

/// `--sandbox on|off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolation {
    On,
    Off,
}

/// Sets isolation for every server this process starts from now on; with `On`, returns a
/// warning naming what the machine cannot enforce (the servers then run without it).
pub fn set_isolation(isolation: Isolation) -> Option<String> {
    ISOLATE.store(isolation == Isolation::On, Ordering::SeqCst);
    if isolation == Isolation::Off {
        return None;
    }
    let probed = probed();
    let mut parts = Vec::new();
    if let Err(why) = &probed.namespaces {
        parts.push(format!(
            "this machine cannot isolate servers ({why}); they run with the network and can write wherever you can. Their environment is still scrubbed and they still run from a scratch copy of their package"
        ));
    }
    for (layer, why) in &probed.missing {
        parts.push(format!(
            "the sandbox runs without {} ({why}): {}",
            layer.name(),
            layer.unguarded()
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; ") + ". `--sandbox off` silences this warning")
}

/// Whether this machine lets a process enter the namespaces, and why not.
pub fn available() -> Result<(), &'static namespace::Refused> {
    probed().namespaces.as_ref().map(|_| ())
}

/// The guards on top of the namespaces that servers started now get.
pub fn layers() -> &'static [Layer] {
    if ISOLATE.load(Ordering::SeqCst) {
        &probed().layers
    } else {
        &[]
    }
}

/// Whether servers started now run in their own namespaces.
fn isolating() -> bool {
    ISOLATE.load(Ordering::SeqCst) && available().is_ok()
}

/// Cleans up after mcpevol processes that were killed (`kill -9`) while servers ran: their
/// servers died with them, but not what those servers started, nor their scratch folders. The
/// leftovers are found by the scratch HOME every server and its descendants inherit; they are
/// killed and the folders removed. A folder whose process id is in use again is left alone.
pub fn clean_up_after_killed_runs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let owner = name
            .strip_prefix(SCRATCH_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(owner) = owner
            && !Path::new(&format!("/proc/{owner}")).exists()
        {
            kill_processes_at_home(&entry.path().join("home"));
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// SIGKILLs every process whose environment says `HOME=home`.
fn kill_processes_at_home(home: &Path) {
    let mut needle = b"HOME=".to_vec();
    needle.extend_from_slice(home.as_os_str().as_encoded_bytes());
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in procs.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ
            .split(|b| *b == 0)
            .any(|var| var == needle.as_slice())
        {
            let pid = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// One server start's scratch folder: `home/`, `tmp/`, `data/` (what `{tmp}` stands for, with
/// the sample files of `samples.rs` in `data/samples/`),
/// `work/`, the copy it runs in, and `node_modules`, a link to the install above the package.
/// Removed when dropped.
pub struct Scratch {
    dir: tempfile::TempDir,
    cwd: PathBuf,
    data: PathBuf,
    /// The browser's launch script in `bin/`, where the machine has a browser.
    browser: Option<PathBuf>,
}

impl Scratch {
    /// A scratch folder for the server of the package at `root`, with a copy of the package.
    pub fn new(root: &Path) -> std::io::Result<Scratch> {
        let prefix = format!("{SCRATCH_PREFIX}{}-", std::process::id());
        let dir = tempfile::Builder::new().prefix(&prefix).tempdir()?;
        for sub in ["home", "tmp", "data"] {
            std::fs::create_dir(dir.path().join(sub))?;
        }
        let root = root.canonicalize()?;
        let cwd = dir.path().join("work");
        copy_package(&root, &cwd)?;
        // Node looks for dependencies in every folder above the package too (a hoisted install,
        // a monorepo's): the nearest such install is linked just above the copy.
        let above = root
            .ancestors()
            .skip(1)
            .map(|a| a.join(DEPENDENCIES))
            .find(|m| m.is_dir());
        if let Some(installed) = above {
            std::os::unix::fs::symlink(installed, dir.path().join(DEPENDENCIES))?;
        }
        let data = dir.path().join("data");
        super::samples::write(&data)?;
        let browser = super::browser::write_script(&dir.path().join("bin"))?;
        Ok(Scratch {
            dir,
            cwd,
            data,
            browser,
        })
    }

    /// Where the server runs: the copy of the package.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The folders an isolated server may write in (and all below them): its copy, HOME,
    /// TMPDIR and `{tmp}`. The scratch folder itself is not among them.
    pub fn writable(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.cwd.clone(), self.data.clone()];
        dirs.extend(["home", "tmp"].map(|d| self.dir.path().join(d)));
        dirs
    }

    /// How a server started from this folder is confined: the namespaces and the layers the
    /// machine has (see [`set_isolation`]); `None` with `--sandbox off`, or where the machine
    /// has none of them. `program`, `settings` (the launch's arguments and variable values,
    /// filled in) and `path` (the server's PATH) say which runtime and files it may read.
    pub fn isolation(
        &self,
        program: &str,
        settings: Vec<String>,
        path: Option<OsString>,
    ) -> std::io::Result<Option<IsolationPlan>> {
        let layers = layers();
        let namespaces = isolating();
        if !namespaces && layers.is_empty() {
            return Ok(None);
        }
        let writable = self.writable();
        let landlock = if layers.contains(&Layer::Landlock) {
            let layout = reads::Layout {
                scratch: self.dir.path(),
                writable: &writable,
                cwd: &self.cwd,
                program,
                settings,
                path,
            };
            landlock::Prepared::build(&reads::grants(&layout)).map_err(std::io::Error::other)?
        } else {
            None
        };
        let guards = Guards::of(namespaces, layers, landlock);
        let writable: Vec<&Path> = writable.iter().map(PathBuf::as_path).collect();
        IsolationPlan::new(&writable, &self.cwd, guards).map(Some)
    }

    /// Kills what the server started that left its process group (puppeteer launches its
    /// browser in a group of its own): every process is found by the scratch HOME it inherited.
    pub fn kill_strays(&self) {
        kill_processes_at_home(&self.dir.path().join("home"));
    }

    /// The fresh folder `{tmp}` stands for.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// A launch argument or variable with `{tmp}` and `{browser}` filled in.
    pub fn fill(&self, value: &str) -> String {
        let browser = self
            .browser
            .as_ref()
            .map_or_else(super::browser::for_clients, |p| p.display().to_string());
        value
            .replace(super::launch::TMP_PLACEHOLDER, &self.data.to_string_lossy())
            .replace(super::browser::BROWSER_PLACEHOLDER, &browser)
    }

    /// The server's whole environment: the allowlist, the browser's variables, then the launch
    /// settings' `env` (already filled in), which may override any of it.
    pub fn environment(&self, launch: &BTreeMap<String, String>) -> Vec<(OsString, OsString)> {
        let mut env: Vec<(OsString, OsString)> = INHERITED_ENV
            .iter()
            .filter_map(|k| Some((OsString::from(k), std::env::var_os(k)?)))
            .collect();
        env.push(("HOME".into(), self.dir.path().join("home").into()));
        env.push(("TMPDIR".into(), self.dir.path().join("tmp").into()));
        if let Some(browser) = &self.browser {
            env.extend(
                super::browser::VARIABLES
                    .iter()
                    .map(|k| (OsString::from(k), browser.clone().into_os_string())),
            );
        }
        env.extend(launch.iter().map(|(k, v)| (k.into(), v.into())));
        env
    }
}

/// Copies the package as it is now (a round's edits included): files and links, no history;
/// each `node_modules` becomes a link to the original, which node resolves to the real
/// install, exactly as it would from the package folder.
fn copy_package(root: &Path, to: &Path) -> std::io::Result<()> {
    let walk = WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || (e.file_name() != HISTORY && e.file_name() != BYTECODE)
        });
    let mut skip: Option<PathBuf> = None;
    for entry in walk {
        let entry = entry.map_err(std::io::Error::other)?;
        if skip.as_ref().is_some_and(|s| entry.path().starts_with(s)) {
            continue;
        }
        let relative = entry
            .path()
            .strip_prefix(root)
            .expect("walkdir stays under its root");
        let target = to.join(relative);
        let kind = entry.file_type();
        if entry.depth() > 0
            && (entry.file_name() == DEPENDENCIES || entry.file_name() == ENVIRONMENT)
        {
            std::os::unix::fs::symlink(entry.path().canonicalize()?, &target)?;
            skip = Some(entry.path().to_path_buf());
        } else if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_copied_without_history_and_with_its_dependencies_linked() {
        let top = tempfile::tempdir().unwrap();
        let r = top.path().join("pkg");
        std::fs::create_dir_all(r.join(".git/objects")).unwrap();
        std::fs::create_dir_all(r.join("node_modules/dep")).unwrap();
        std::fs::create_dir_all(r.join("src")).unwrap();
        std::fs::create_dir_all(top.path().join("node_modules/hoisted")).unwrap();
        std::fs::write(r.join("node_modules/dep/index.js"), "1").unwrap();
        std::fs::write(r.join("src/index.js"), "edited").unwrap();
        let scratch = Scratch::new(&r).unwrap();
        let work = scratch.cwd();
        assert!(scratch.writable().contains(&work.to_path_buf()));
        assert_eq!(
            std::fs::read_to_string(work.join("src/index.js")).unwrap(),
            "edited"
        );
        assert!(!work.join(".git").exists());
        let real = |p: &Path| p.canonicalize().unwrap();
        assert_eq!(
            std::fs::read_link(work.join("node_modules")).unwrap(),
            real(&r.join("node_modules"))
        );
        assert_eq!(
            real(&work.join("../node_modules")),
            real(&top.path().join("node_modules")),
            "the install above the package resolves from the copy too"
        );
        // A write in the copy stays there.
        std::fs::write(work.join("src/index.js"), "server wrote this").unwrap();
        assert_eq!(
            std::fs::read_to_string(r.join("src/index.js")).unwrap(),
            "edited"
        );
    }

    #[test]
    fn the_environment_holds_path_scratch_folders_and_the_launch_variables_only() {
        let root = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(root.path()).unwrap();
        let launch = BTreeMap::from([("MY_TOKEN".to_string(), "named".to_string())]);
        let env: BTreeMap<String, String> = scratch
            .environment(&launch)
            .into_iter()
            .map(|(k, v)| (k.into_string().unwrap(), v.into_string().unwrap()))
            .collect();
        let keys: Vec<&str> = env.keys().map(String::as_str).collect();
        let mut expected = vec!["HOME", "MY_TOKEN", "TMPDIR"];
        if std::env::var_os("PATH").is_some() {
            expected.push("PATH");
        }
        if super::super::browser::installed().is_some() {
            expected.extend(super::super::browser::VARIABLES);
        }
        expected.sort();
        assert_eq!(keys, expected);
        for var in ["HOME", "TMPDIR"] {
            assert!(
                scratch.writable().contains(&PathBuf::from(&env[var])),
                "{var}"
            );
        }
    }
}
