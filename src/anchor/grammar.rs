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
}

/// A query file, with the grammars it is written for.
pub struct QuerySource {
    pub name: &'static str,
    pub text: &'static str,
    /// TypeScript-only node kinds (enums) do not exist in the JavaScript grammar.
    pub typescript_only: bool,
}

macro_rules! query_file {
    ($dir:literal, $name:literal, $ts_only:expr) => {
        QuerySource {
            name: concat!($dir, "/", $name, ".scm"),
            text: include_str!(concat!("queries/", $dir, "/", $name, ".scm")),
            typescript_only: $ts_only,
        }
    };
}

/// Every query the anchoring uses; a test compiles each one for each grammar it is written for.
pub const QUERY_SOURCES: &[QuerySource] = &[
    query_file!("common", "register", false),
    query_file!("common", "objects", false),
    query_file!("common", "dispatch", false),
    query_file!("common", "declarations", false),
    query_file!("common", "classes", false),
    query_file!("typescript", "enums", true),
];

/// The compiled queries of one grammar, indexed like the names below.
pub struct Queries {
    pub register: Query,
    pub objects: Query,
    pub dispatch: Query,
    pub declarations: Query,
    pub classes: Query,
    pub enums: Option<Query>,
}

impl Lang {
    pub const ALL: [Lang; 3] = [Lang::JavaScript, Lang::TypeScript, Lang::Tsx];

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
            _ => None,
        }
    }

    pub fn language(self) -> Language {
        match self {
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    pub fn is_typescript(self) -> bool {
        self != Lang::JavaScript
    }

    /// The compiled queries, built once per grammar and shared by all threads.
    pub fn queries(self) -> &'static Queries {
        static JS: OnceLock<Queries> = OnceLock::new();
        static TS: OnceLock<Queries> = OnceLock::new();
        static TSX: OnceLock<Queries> = OnceLock::new();
        let cell = match self {
            Lang::JavaScript => &JS,
            Lang::TypeScript => &TS,
            Lang::Tsx => &TSX,
        };
        cell.get_or_init(|| Queries::compile(self))
    }
}

impl Queries {
    fn compile(lang: Lang) -> Queries {
        let get = |name: &str| {
            let source = QUERY_SOURCES
                .iter()
                .find(|q| q.name.ends_with(&format!("/{name}.scm")))
                .expect("every query named here is listed in QUERY_SOURCES");
            compile_query(lang, source).unwrap_or_else(|e| panic!("{e}"))
        };
        Queries {
            register: get("register"),
            objects: get("objects"),
            dispatch: get("dispatch"),
            declarations: get("declarations"),
            classes: get("classes"),
            enums: lang.is_typescript().then(|| get("enums")),
        }
    }
}

/// Compiles one query file for one grammar; the error names the file, grammar and position.
pub fn compile_query(lang: Lang, source: &QuerySource) -> Result<Query, String> {
    Query::new(&lang.language(), source.text).map_err(|e| {
        format!(
            "query {} does not compile for {lang:?}: {} at row {}, column {}",
            source.name, e.message, e.row, e.column
        )
    })
}
