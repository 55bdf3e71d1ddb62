//! Anchoring: finding every tool a JS/TS MCP server package defines, statically.
//!
//! Files are parsed in parallel; each yields [`facts::FileFacts`] (its trees are then dropped),
//! and [`link::link`] joins the facts of all files into one [`Inventory`].

pub mod callers;
pub mod changes;
pub mod facts;
pub mod files;
pub mod grammar;
pub mod link;
pub mod literal;
mod name_tables;
pub mod params;
pub mod pieces;
pub mod python;
pub mod reach;
pub mod syntax;
pub mod text;
pub mod trees;
pub mod zod;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use tree_sitter::{Parser, Tree};

use files::SourceFile;
use grammar::Lang;
pub(crate) use mcpevol_core::hash::content_hash;
use mcpevol_core::inventory::{Inventory, NotReached, Span, Tool};
use mcpevol_core::launch::LaunchConfig;

#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    #[error("{0} is not a folder")]
    NotAFolder(PathBuf),
    #[error(
        "{0} has no package.json, so it is not an npm package (give the folder that holds package.json, or a Python package's folder with pyproject.toml or a .venv)"
    )]
    NoPackageJson(PathBuf),
}

/// Anchors every tool of the package at `root`, launched as its own settings say (its
/// `.mcpevol/server.toml`, else its package metadata).
pub fn anchor(root: &Path) -> Result<Inventory, AnchorError> {
    anchor_with(root, &Mutex::new(FactsCache::default()))
}

/// [`anchor`] for the launch `config` (a catalog's entry, which may run another `bin` than
/// the package's first): the tools are those its entry reaches.
pub fn anchor_launched(root: &Path, config: &LaunchConfig) -> Result<Inventory, AnchorError> {
    anchor_from(root, &Mutex::new(FactsCache::default()), Some(config))
}

/// The facts of files read before, by path and a hash of their content. Evolution anchors the
/// same package every round while a round changes one or two files: the rest is reused.
/// Two versions are kept per file: the one at HEAD and an edited one read ahead by
/// [`prefetch`], so that a rejected edit does not cost HEAD's facts.
#[derive(Default)]
pub struct FactsCache {
    files: HashMap<String, Vec<(u64, facts::FileFacts)>>,
}

/// How many versions of one file's facts [`FactsCache`] keeps.
const VERSIONS_KEPT: usize = 2;

impl FactsCache {
    /// The facts of `rel` at `hash`, which become the last to be dropped.
    fn get(&mut self, rel: &str, hash: u64) -> Option<facts::FileFacts> {
        let versions = self.files.get_mut(rel)?;
        let at = versions.iter().position(|(h, _)| *h == hash)?;
        let hit = versions.remove(at);
        versions.insert(0, hit);
        Some(versions[0].1.clone())
    }

    fn put(&mut self, rel: &str, hash: u64, facts: facts::FileFacts) {
        let versions = self.files.entry(rel.to_string()).or_default();
        versions.retain(|(h, _)| *h != hash);
        versions.insert(0, (hash, facts));
        versions.truncate(VERSIONS_KEPT);
    }
}

/// Reads the facts of `files` (paths relative to `root`, as an edit names them; `None` for
/// every source file) into `cache`, so that the next anchoring finds them. Evolution does it
/// where a server step follows, which it overlaps: once an edit is applied, and while the
/// first baseline is observed. Files that are not source are skipped.
pub fn read_ahead(root: &Path, files: Option<&[String]>, cache: &Mutex<FactsCache>) {
    let (sources, _) = files::discover(root);
    sources
        .par_iter()
        .filter(|f| files.is_none_or(|only| only.contains(&f.rel)))
        .for_each(|f| drop(read_cached(f, cache)));
}

/// [`read_ahead`] on another thread.
pub fn prefetch(
    root: &Path,
    files: Option<&[String]>,
    cache: &std::sync::Arc<Mutex<FactsCache>>,
) -> std::thread::JoinHandle<()> {
    let (root, cache) = (root.to_path_buf(), cache.clone());
    let files = files.map(<[String]>::to_vec);
    std::thread::spawn(move || read_ahead(&root, files.as_deref(), &cache))
}

/// [`anchor`], reusing the facts of files that have not changed since they went into `cache`.
pub fn anchor_with(root: &Path, cache: &Mutex<FactsCache>) -> Result<Inventory, AnchorError> {
    anchor_from(root, cache, None)
}

fn anchor_from(
    root: &Path,
    cache: &Mutex<FactsCache>,
    config: Option<&LaunchConfig>,
) -> Result<Inventory, AnchorError> {
    check_package(root)?;
    let (files, mut warnings) = files::discover(root);
    let mut read: Vec<(String, facts::FileFacts)> = files
        .par_iter()
        .map(|f| (f.rel.clone(), read_cached(f, cache)))
        .collect();
    for (_, facts) in &mut read {
        warnings.append(&mut facts.warnings);
    }
    let entry = entry_file(root, config);
    let reaching: HashMap<&str, reach::Reaching> = read
        .iter()
        .map(|(r, f)| {
            let reaching = reach::Reaching {
                imports: &f.imports,
                computes_imports: f.computes_imports,
                defines_tools: !f.candidates.is_empty() || !f.dispatches.is_empty(),
            };
            (r.as_str(), reaching)
        })
        .collect();
    let launched = entry.as_deref().and_then(|e| reach::launched(e, &reaching));
    let reached = launched.clone().unwrap_or_default();
    let (mut tools, mut not_reached) = confine(
        link::link(&read, entry.as_deref(), &reached),
        launched.as_ref(),
    );
    if let Some(launched) = &launched {
        not_reached.extend(uncalled(root, &mut tools, &read, launched));
    }
    not_reached.sort_by(|a, b| (&a.name, &a.file).cmp(&(&b.name, &b.file)));
    if tools.is_empty() {
        warnings.push(format!(
            "no tools found in the package's own {} source files; a server that takes its tools from a dependency (node_modules) is out of reach",
            read.len()
        ));
    }
    Ok(Inventory {
        root: root.display().to_string(),
        tools,
        warnings,
        not_reached,
    })
}

/// The tools the launch runs, and those defined only where it never reaches.
fn confine(tools: Vec<Tool>, launched: Option<&HashSet<String>>) -> (Vec<Tool>, Vec<NotReached>) {
    let Some(launched) = launched else {
        return (tools, Vec::new());
    };
    let (kept, dropped): (Vec<Tool>, Vec<Tool>) = tools
        .into_iter()
        .partition(|t| launched.contains(&t.definition.file));
    let left_out = dropped.into_iter().map(not_reached).collect();
    (kept, left_out)
}

/// A tool left out, by name and the file that defines it.
fn not_reached(tool: Tool) -> NotReached {
    NotReached {
        name: tool.name,
        file: tool.definition.file,
    }
}

/// The tools registered only inside a function that no launched file calls: the text of the
/// other launched files is read for its name, once per name.
fn uncalled(
    root: &Path,
    tools: &mut Vec<Tool>,
    read: &[(String, facts::FileFacts)],
    launched: &HashSet<String>,
) -> Vec<NotReached> {
    let inside: HashMap<&Span, &str> = read
        .iter()
        .flat_map(|(_, f)| f.uncalled.iter().map(|(s, n)| (s, n.as_str())))
        .collect();
    if inside.is_empty() {
        return Vec::new();
    }
    let mut texts: HashMap<&str, String> = HashMap::new();
    // Named by another launched file, or its module taken whole there (`import * as`).
    let mut called = |function: &str, from: &str| {
        launched.iter().filter(|f| f.as_str() != from).any(|f| {
            let text = texts
                .entry(f.as_str())
                .or_insert_with(|| std::fs::read_to_string(root.join(f)).unwrap_or_default());
            callers::mentions(text, function, 1) > 0 || reach::takes_whole(f, text, from, launched)
        })
    };
    let (dormant, kept): (Vec<Tool>, Vec<Tool>) =
        std::mem::take(tools).into_iter().partition(|t| {
            inside
                .get(&t.definition)
                .is_some_and(|f| !called(f, &t.definition.file))
        });
    *tools = kept;
    dormant.into_iter().map(not_reached).collect()
}

/// The source file the server's launch command runs, relative to the root.
fn entry_file(root: &Path, config: Option<&LaunchConfig>) -> Option<String> {
    let config = match config {
        Some(c) => c.clone(),
        None => LaunchConfig::for_package(root).ok()?,
    };
    if let Some(module) = python_entry_module(&config.args) {
        let base = config.env.get("PYTHONPATH").map_or(".", String::as_str);
        let stem = module.replace('.', "/");
        return [
            format!("{stem}/__main__.py"),
            format!("{stem}/__init__.py"),
            format!("{stem}.py"),
        ]
        .into_iter()
        .map(|f| {
            format!("{}/{f}", base.trim_end_matches('/'))
                .trim_start_matches("./")
                .to_string()
        })
        .find(|f| root.join(f).is_file());
    }
    let script = config.args.iter().find(|a| root.join(a).is_file())?;
    Some(
        files::relative(root, &root.join(script))
            .trim_start_matches("./")
            .to_string(),
    )
}

/// The module a Python launch runs: `-m module`, or the module a `-c` runner imports from.
fn python_entry_module(args: &[String]) -> Option<String> {
    let at = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    if let Some(m) = at("-m") {
        return Some(m.clone());
    }
    let code = at("-c")?;
    let from = code.split("from ").nth(1)?;
    Some(from.split_whitespace().next()?.to_string())
}

pub fn check_package(root: &Path) -> Result<(), AnchorError> {
    if !root.is_dir() {
        return Err(AnchorError::NotAFolder(root.to_path_buf()));
    }
    if !root.join("package.json").is_file() && !is_python_package(root) {
        return Err(AnchorError::NoPackageJson(root.to_path_buf()));
    }
    Ok(())
}

/// A Python package folder: no `package.json`, and a `pyproject.toml` (or `setup.py`), or a
/// `.venv` beside its sources as a workspace from PyPI has, or launch settings that run Python.
pub fn is_python_package(root: &Path) -> bool {
    if root.join("package.json").is_file() {
        return false;
    }
    [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        mcpevol_core::launch::VENV_LINK,
    ]
    .iter()
    .any(|f| root.join(f).exists())
        || mcpevol_core::launch::LaunchConfig::for_package(root).is_ok_and(|c| {
            Path::new(&c.command)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python"))
        })
}

fn read_cached(file: &SourceFile, cache: &Mutex<FactsCache>) -> facts::FileFacts {
    let bytes = match std::fs::read(&file.path) {
        Ok(b) => b,
        Err(e) => return skipped(&file.rel, format!("cannot read it: {e}")),
    };
    let hash = content_hash(&bytes);
    if let Some(facts) = lock(cache).get(&file.rel, hash) {
        return facts;
    }
    let facts = read_source(&file.rel, file.lang, bytes);
    lock(cache).put(&file.rel, hash, facts.clone());
    facts
}

/// The cache, also after a thread panicked holding it: its entries are whole either way.
fn lock(cache: &Mutex<FactsCache>) -> std::sync::MutexGuard<'_, FactsCache> {
    cache.lock().unwrap_or_else(|p| p.into_inner())
}

fn skipped(rel: &str, why: String) -> facts::FileFacts {
    facts::FileFacts {
        warnings: vec![format!("{rel}: skipped, {why}")],
        ..Default::default()
    }
}

/// The facts of one file's bytes, `rel` naming it: what anchoring does per file, and the entry
/// point the fuzz targets (fuzz/) feed arbitrary bytes to. Binary, non-UTF-8 and unparsable
/// content gives a warning, never an error.
pub fn read_source(rel: &str, lang: Lang, bytes: Vec<u8>) -> facts::FileFacts {
    let skipped = |why: String| skipped(rel, why);
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return skipped("it is binary (has NUL bytes)".into());
    }
    let Ok(src) = String::from_utf8(bytes) else {
        return skipped("it is not UTF-8 text".into());
    };
    // A large file no earlier step parsed: piece by piece, a piece per core at once, each
    // piece's tree dropped once read (see `facts/stream.rs`), so that its tree is never held
    // whole.
    if lang != Lang::Python
        && src.len() >= pieces::PIECES_MIN_BYTES
        && !trees::holds_near(&src, lang)
        && let Some(facts) = facts::stream::read(&src, rel, lang, facts::stream::PIECE_BYTES)
    {
        return facts::FileFacts {
            imports: reach::specifiers(&src),
            computes_imports: reach::computes_imports(&src),
            ..facts
        };
    }
    match parse(&src, lang) {
        Some(tree) if lang == Lang::Python => python::read(&tree, &src, rel),
        Some(tree) => facts::FileFacts {
            imports: reach::specifiers(&src),
            computes_imports: reach::computes_imports(&src),
            ..facts::read(&tree, &src, rel, lang)
        },
        None => skipped("the parser gave up on it".into()),
    }
}

/// Parses one source text; a large one through [`trees`], which keeps its tree for the next
/// step that parses it, or an edited version of it.
pub fn parse(src: &str, lang: Lang) -> Option<Tree> {
    trees::tree(src, lang, |old| parse_with(src, lang, old))
}

/// A parse with this thread's parser for `lang`; `old`, an edited earlier tree of the text,
/// makes it incremental. Also the baseline the anchoring benchmark compares against.
pub fn parse_with(src: &str, lang: Lang, old: Option<&Tree>) -> Option<Tree> {
    thread_local! {
        // A parser per thread and grammar, reused across files: creating one costs allocations
        // that show up when a package has many small files.
        static PARSERS: std::cell::RefCell<Vec<(Lang, Parser)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    PARSERS.with_borrow_mut(|parsers| {
        let idx = match parsers.iter().position(|(l, _)| *l == lang) {
            Some(i) => i,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&lang.language()).ok()?;
                parsers.push((lang, parser));
                parsers.len() - 1
            }
        };
        parsers[idx].1.parse(src, old)
    })
}

/// The source files anchoring would read, for benchmarks and diagnostics.
pub fn source_files(root: &Path) -> Vec<SourceFile> {
    files::discover(root).0
}
