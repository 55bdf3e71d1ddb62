//! Anchoring: finding every tool a JS/TS MCP server package defines, statically.
//!
//! Files are parsed in parallel; each yields [`facts::FileFacts`] (its trees are then dropped),
//! and [`link::link`] joins the facts of all files into one [`Inventory`].

pub mod facts;
pub mod files;
pub mod grammar;
pub mod link;
pub mod params;
pub mod syntax;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use tree_sitter::{Parser, Tree};

use crate::inventory::Inventory;
use files::SourceFile;
use grammar::Lang;

#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    #[error("{0} is not a folder")]
    NotAFolder(PathBuf),
    #[error(
        "{0} has no package.json, so it is not an npm package (give the folder that holds package.json)"
    )]
    NoPackageJson(PathBuf),
}

/// Anchors every tool of the package at `root`.
pub fn anchor(root: &Path) -> Result<Inventory, AnchorError> {
    anchor_with(root, &Mutex::new(Cache::default()))
}

/// The facts of files read before, by path and a hash of their content. Evolution anchors the
/// same package every round while a round changes one or two files: the rest is reused.
#[derive(Default)]
pub struct Cache {
    files: HashMap<String, (u64, facts::FileFacts)>,
}

/// [`anchor`], reusing the facts of files that have not changed since they went into `cache`.
pub fn anchor_with(root: &Path, cache: &Mutex<Cache>) -> Result<Inventory, AnchorError> {
    check_package(root)?;
    let (files, mut warnings) = files::discover(root);
    let mut read: Vec<(String, facts::FileFacts)> = files
        .par_iter()
        .map(|f| (f.rel.clone(), read_cached(f, cache)))
        .collect();
    for (_, facts) in &mut read {
        warnings.append(&mut facts.warnings);
    }
    let entry = entry_file(root);
    let tools = link::link(&read, entry.as_deref());
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
    })
}

/// The source file the server's launch command runs, relative to the root.
fn entry_file(root: &Path) -> Option<String> {
    let config = crate::server::LaunchConfig::for_package(root).ok()?;
    let script = config.args.iter().find(|a| root.join(a).is_file())?;
    Some(
        files::relative(root, &root.join(script))
            .trim_start_matches("./")
            .to_string(),
    )
}

pub fn check_package(root: &Path) -> Result<(), AnchorError> {
    if !root.is_dir() {
        return Err(AnchorError::NotAFolder(root.to_path_buf()));
    }
    if !root.join("package.json").is_file() {
        return Err(AnchorError::NoPackageJson(root.to_path_buf()));
    }
    Ok(())
}

fn read_cached(file: &SourceFile, cache: &Mutex<Cache>) -> facts::FileFacts {
    let bytes = match std::fs::read(&file.path) {
        Ok(b) => b,
        Err(e) => return skipped(&file.rel, format!("cannot read it: {e}")),
    };
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    let hash = hasher.finish();
    if let Some((h, facts)) = cache.lock().unwrap().files.get(&file.rel)
        && *h == hash
    {
        return facts.clone();
    }
    let facts = read_source(&file.rel, file.lang, bytes);
    cache
        .lock()
        .unwrap()
        .files
        .insert(file.rel.clone(), (hash, facts.clone()));
    facts
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
    match parse(&src, lang) {
        Some(tree) => facts::read(&tree, &src, rel, lang),
        None => skipped("the parser gave up on it".into()),
    }
}

/// Parses one source text; also the baseline the anchoring benchmark compares against.
pub fn parse(src: &str, lang: Lang) -> Option<Tree> {
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
        parsers[idx].1.parse(src, None)
    })
}

/// The source files anchoring would read, for benchmarks and diagnostics.
pub fn source_files(root: &Path) -> Vec<SourceFile> {
    files::discover(root).0
}
