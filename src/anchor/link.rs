//! Joining the facts of all files into tools: names through constants, schemas and handlers
//! through imports, dispatch found in another module, duplicates (TS source beside its JS) merged.

use std::collections::{BTreeMap, HashMap};

use super::facts::{Candidate, CandidateKind, Dispatch, DispatchKind, FileFacts, HandlerRef};
use super::params::SchemaRef;
use super::syntax::Expr;
use crate::inventory::{Param, Span, Style, Tool};

/// What all files declare, by name, for resolving references between them.
struct Names<'f> {
    constants: HashMap<&'f str, Vec<(&'f str, &'f str)>>,
    schemas: HashMap<&'f str, &'f [Param]>,
    functions: HashMap<&'f str, Vec<&'f Span>>,
}

impl<'f> Names<'f> {
    fn new(files: &'f [(String, FileFacts)]) -> Self {
        let mut names = Names {
            constants: HashMap::new(),
            schemas: HashMap::new(),
            functions: HashMap::new(),
        };
        for (rel, facts) in files {
            for (k, v) in &facts.constants {
                names
                    .constants
                    .entry(k.as_str())
                    .or_default()
                    .push((rel.as_str(), v.as_str()));
            }
            for (k, p) in &facts.schemas {
                names.schemas.entry(k.as_str()).or_insert(p.as_slice());
            }
            for (k, s) in &facts.functions {
                names.functions.entry(k.as_str()).or_default().push(s);
            }
        }
        names
    }

    /// The string an expression stands for. A dotted name is tried as written, then without
    /// its leading parts, because CommonJS output reaches imports as `tools_1.ToolName.ECHO`.
    fn resolve(&self, expr: &Expr, file: &str) -> Option<String> {
        match expr {
            Expr::Str(s) => Some(s.clone()),
            Expr::Unknown => None,
            Expr::Path(p) => suffixes(p).find_map(|key| {
                let defs = self.constants.get(key)?;
                let same_file = defs.iter().find(|(f, _)| *f == file);
                same_file.or(defs.first()).map(|(_, v)| v.to_string())
            }),
        }
    }

    fn params(&self, schema: &SchemaRef) -> Vec<Param> {
        match schema {
            SchemaRef::Inline(p) => p.clone(),
            SchemaRef::Named(path) => suffixes(path)
                .find_map(|k| self.schemas.get(k))
                .map(|p| p.to_vec())
                .unwrap_or_default(),
            SchemaRef::None => Vec::new(),
        }
    }

    fn handler_span(&self, handler: &HandlerRef, file: &str) -> Option<Span> {
        match handler {
            HandlerRef::At(span) => Some(span.clone()),
            HandlerRef::Named(name) => {
                let defs = self.functions.get(name.as_str())?;
                let best = defs.iter().find(|s| s.file == file).or(defs.first());
                best.map(|s| (*s).clone())
            }
        }
    }
}

/// `a.b.c`, then `b.c`; a lone identifier only as itself.
fn suffixes(path: &str) -> impl Iterator<Item = &str> {
    let dots: Vec<usize> = path.match_indices('.').map(|(i, _)| i).collect();
    let keep_two = dots.len().saturating_sub(1);
    std::iter::once(path).chain(dots.into_iter().take(keep_two).map(move |i| &path[i + 1..]))
}

/// The order in which duplicate definitions of one name are preferred: explicit registration
/// first, and compiled JavaScript over its TypeScript source, since JavaScript is what runs.
fn rank(c: &Candidate) -> (u8, bool) {
    let kind = match c.kind {
        CandidateKind::RegisterCall => 0,
        CandidateKind::ToolObject { registered: true } => 1,
        CandidateKind::Class => 2,
        CandidateKind::ToolObject { registered: false } => 3,
        CandidateKind::MapEntry => 4,
    };
    (kind, is_typescript(&c.definition.file))
}

fn is_typescript(file: &str) -> bool {
    [".ts", ".mts", ".cts", ".tsx"]
        .iter()
        .any(|e| file.ends_with(e))
}

pub fn link(files: &[(String, FileFacts)]) -> Vec<Tool> {
    let names = Names::new(files);
    let mut best: BTreeMap<String, &Candidate> = BTreeMap::new();
    let mut loop_registration = false;
    for (rel, facts) in files {
        for c in &facts.candidates {
            let Some(name) = names.resolve(&c.name, rel) else {
                // `server.tool(t.name, ...)` inside a loop: the names are in the tool objects.
                loop_registration |= c.kind == CandidateKind::RegisterCall;
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let entry = best.entry(name).or_insert(c);
            if rank(c) < rank(entry) {
                *entry = c;
            }
        }
    }
    let names_ref = &names;
    let dispatches: Vec<(String, &Dispatch)> = files
        .iter()
        .flat_map(|(rel, f)| {
            f.dispatches
                .iter()
                .filter_map(move |d| Some((names_ref.resolve(&d.name, rel)?, d)))
        })
        .collect();
    best.into_iter()
        .map(|(name, c)| {
            let file = c.definition.file.as_str();
            let own_handler = c.handler.as_ref().and_then(|h| names.handler_span(h, file));
            let (style, handler) = match (c.kind, own_handler) {
                (
                    CandidateKind::RegisterCall
                    | CandidateKind::Class
                    | CandidateKind::ToolObject { registered: true },
                    h,
                ) => (Style::Register, h),
                (_, Some(h)) if loop_registration => (Style::Register, Some(h)),
                (_, own) => match find_dispatch(&name, file, &dispatches, &names) {
                    Some((kind, span)) => (dispatch_style(kind, file, &span), Some(span)),
                    None => (Style::Other, own),
                },
            };
            Tool {
                description: names.resolve(&c.description, file),
                params: names.params(&c.schema),
                name,
                style,
                definition: c.definition.clone(),
                handler,
            }
        })
        .collect()
}

fn dispatch_style(kind: DispatchKind, def_file: &str, handler: &Span) -> Style {
    if handler.file != def_file {
        return Style::CrossFile;
    }
    match kind {
        DispatchKind::Case => Style::Switch,
        DispatchKind::If => Style::If,
        DispatchKind::MapKey => Style::Other,
    }
}

/// The handler for a listed tool: a dispatch on something named like a tool name beats one on
/// anything else (a decoy `switch (format)`), then switch and if beat maps, then the same file
/// (and language) as the definition beats another.
fn find_dispatch(
    name: &str,
    def_file: &str,
    dispatches: &[(String, &Dispatch)],
    names: &Names,
) -> Option<(DispatchKind, Span)> {
    dispatches
        .iter()
        .filter(|(n, _)| n == name)
        .filter_map(|(_, d)| Some((d, names.handler_span(&d.handler, def_file)?)))
        .min_by_key(|(d, span)| {
            (
                !d.on_tool_name,
                d.kind == DispatchKind::MapKey,
                is_typescript(&span.file) != is_typescript(def_file),
                span.file != def_file,
            )
        })
        .map(|(d, span)| (d.kind, span))
}
