//! The tree-sitter grammars and the compiled anchoring queries for each source language.

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

/// The grammar a source file is parsed with, chosen by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    JavaScript,
    TypeScript,
    Tsx,
    Python,
}

/// What a query file finds; each match is handed to the reader for its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    Register,
    Objects,
    Dispatch,
    Declarations,
    Classes,
    Enums,
    Helpers,
    Builders,
    /// Python: decorated functions (`@mcp.tool()`, `@server.call_tool()`).
    PyDecorated,
    /// Python: calls that may define or register a tool (`Tool(...)`, `add_tool(...)`).
    PyCalls,
    /// Python: `match name:` cases, `name == "x"` comparisons, handler dictionaries.
    PyDispatch,
    /// Python: constants, enum and model classes, functions, names listed in lists.
    PyDeclarations,
}

/// The grammars a query file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammars {
    /// JavaScript, TypeScript and TSX.
    JsAndTs,
    /// TypeScript and TSX only (enums do not exist in JavaScript).
    TypeScriptOnly,
    Python,
}

impl Grammars {
    pub fn fits(self, lang: Lang) -> bool {
        match self {
            Grammars::JsAndTs => lang != Lang::Python,
            Grammars::TypeScriptOnly => lang.is_typescript(),
            Grammars::Python => lang == Lang::Python,
        }
    }
}

/// A query file, with the grammars it is written for.
pub struct QuerySource {
    pub name: &'static str,
    pub text: &'static str,
    pub kind: QueryKind,
    pub grammars: Grammars,
}

macro_rules! query_file {
    ($dir:literal, $name:literal, $kind:expr, $grammars:expr) => {
        QuerySource {
            name: concat!($dir, "/", $name, ".scm"),
            text: include_str!(concat!("queries/", $dir, "/", $name, ".scm")),
            kind: $kind,
            grammars: $grammars,
        }
    };
}

/// Every query the anchoring uses; a test compiles each one for each grammar it is written for.
pub const QUERY_SOURCES: &[QuerySource] = &[
    query_file!("common", "register", QueryKind::Register, Grammars::JsAndTs),
    query_file!("common", "objects", QueryKind::Objects, Grammars::JsAndTs),
    query_file!("common", "dispatch", QueryKind::Dispatch, Grammars::JsAndTs),
    query_file!(
        "common",
        "declarations",
        QueryKind::Declarations,
        Grammars::JsAndTs
    ),
    query_file!("common", "classes", QueryKind::Classes, Grammars::JsAndTs),
    query_file!("common", "helpers", QueryKind::Helpers, Grammars::JsAndTs),
    query_file!("common", "builders", QueryKind::Builders, Grammars::JsAndTs),
    query_file!(
        "typescript",
        "enums",
        QueryKind::Enums,
        Grammars::TypeScriptOnly
    ),
    query_file!(
        "python",
        "decorated",
        QueryKind::PyDecorated,
        Grammars::Python
    ),
    query_file!("python", "calls", QueryKind::PyCalls, Grammars::Python),
    query_file!(
        "python",
        "dispatch",
        QueryKind::PyDispatch,
        Grammars::Python
    ),
    query_file!(
        "python",
        "declarations",
        QueryKind::PyDeclarations,
        Grammars::Python
    ),
];

/// All query files of one grammar compiled as one query, so that a file's tree is walked once
/// rather than once per query file (the walk dominates anchoring time).
pub struct Queries {
    pub all: Query,
    /// The kind of each pattern of `all`, by pattern index.
    kinds: Vec<QueryKind>,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::JavaScript, Lang::TypeScript, Lang::Tsx, Lang::Python];

    /// The grammar for a source path, or None when the file is not JS/TS source we scan
    /// (declaration files and anything else).
    pub fn for_path(path: &Path) -> Option<Lang> {
        let name = path.file_name()?.to_str()?;
        if [".d.ts", ".d.mts", ".d.cts"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            return None;
        }
        match path.extension()?.to_str()? {
            "js" | "mjs" | "cjs" | "jsx" => Some(Lang::JavaScript),
            "ts" | "mts" | "cts" => Some(Lang::TypeScript),
            "tsx" => Some(Lang::Tsx),
            "py" => Some(Lang::Python),
            _ => None,
        }
    }

    pub fn language(self) -> Language {
        match self {
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }

    pub fn is_typescript(self) -> bool {
        matches!(self, Lang::TypeScript | Lang::Tsx)
    }

    /// The compiled queries, built once per grammar and shared by all threads.
    pub fn queries(self) -> &'static Queries {
        static JS: OnceLock<Queries> = OnceLock::new();
        static TS: OnceLock<Queries> = OnceLock::new();
        static TSX: OnceLock<Queries> = OnceLock::new();
        static PY: OnceLock<Queries> = OnceLock::new();
        let cell = match self {
            Lang::JavaScript => &JS,
            Lang::TypeScript => &TS,
            Lang::Tsx => &TSX,
            Lang::Python => &PY,
        };
        cell.get_or_init(|| Queries::compile(self))
    }
}

impl Queries {
    fn compile(lang: Lang) -> Queries {
        let sources: Vec<&QuerySource> = QUERY_SOURCES
            .iter()
            .filter(|q| q.grammars.fits(lang))
            .collect();
        let mut text = String::new();
        let mut starts = Vec::new();
        for source in &sources {
            compile_query(lang, source).unwrap_or_else(|e| panic!("{e}"));
            starts.push(text.len());
            text += source.text;
            text += "\n";
        }
        let all = Query::new(&lang.language(), &text).expect("each part compiled alone");
        let kinds = (0..all.pattern_count())
            .map(|i| {
                let at = all.start_byte_for_pattern(i);
                let part = starts
                    .iter()
                    .rposition(|s| *s <= at)
                    .expect("patterns start in a part");
                sources[part].kind
            })
            .collect();
        Queries { all, kinds }
    }

    pub fn kind(&self, pattern: usize) -> QueryKind {
        self.kinds[pattern]
    }
}

/// A query file that does not compile for a grammar.
#[derive(Debug, thiserror::Error)]
#[error("query {file} does not compile for {lang:?}: {} at row {}, column {}", .error.message, .error.row, .error.column)]
pub struct BadQuery {
    pub file: &'static str,
    pub lang: Lang,
    pub error: tree_sitter::QueryError,
}

/// Compiles one query file for one grammar; the error names the file, grammar and position.
pub fn compile_query(lang: Lang, source: &QuerySource) -> Result<Query, BadQuery> {
    Query::new(&lang.language(), source.text).map_err(|error| BadQuery {
        file: source.name,
        lang,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles_for_every_grammar_it_is_written_for() {
        for source in QUERY_SOURCES {
            for lang in Lang::ALL {
                if source.grammars.fits(lang) {
                    compile_query(lang, source).unwrap();
                }
            }
        }
    }

    #[test]
    fn python_queries_do_not_compile_for_javascript_nor_javascript_ones_for_python() {
        for source in QUERY_SOURCES {
            let other = match source.grammars {
                Grammars::Python => Lang::JavaScript,
                _ => Lang::Python,
            };
            assert!(
                compile_query(other, source).is_err(),
                "{} compiles for {other:?} too",
                source.name
            );
        }
    }

    #[test]
    fn typescript_only_queries_really_need_the_typescript_grammar() {
        for source in QUERY_SOURCES
            .iter()
            .filter(|q| q.grammars == Grammars::TypeScriptOnly)
        {
            assert!(
                compile_query(Lang::JavaScript, source).is_err(),
                "{} compiles for JavaScript too: make it common",
                source.name
            );
        }
    }

    #[test]
    fn declaration_files_and_non_sources_get_no_grammar() {
        assert_eq!(Lang::for_path(Path::new("dist/index.d.ts")), None);
        assert_eq!(Lang::for_path(Path::new("dist/index.js.map")), None);
        assert_eq!(
            Lang::for_path(Path::new("dist/index.cjs")),
            Some(Lang::JavaScript)
        );
        assert_eq!(Lang::for_path(Path::new("src/app.tsx")), Some(Lang::Tsx));
        assert_eq!(
            Lang::for_path(Path::new("pkg/server.py")),
            Some(Lang::Python)
        );
        assert_eq!(
            Lang::for_path(Path::new("src/index.mts")),
            Some(Lang::TypeScript)
        );
    }
}
