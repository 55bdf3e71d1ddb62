//! Joining the facts of all files into tools: names through constants, schemas and handlers
//! through imports, dispatch found in another module, duplicates (TS source beside its JS) merged.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::facts::{Candidate, CandidateKind, Dispatch, DispatchKind, FileFacts, HandlerRef};
use super::params::{self, Schema, SchemaRef};
use super::syntax::{self, Expr};
use mcpevol_core::inventory::{DescriptionForm, DescriptionSite, Span, Style, Tool};

/// Schemas declared as another, followed at most this far (a cycle ends there).
const ALIAS_DEPTH: usize = 4;

mod shapes;
use shapes::HeldParam;

/// What all files declare, by name, for resolving references between them.
struct Names<'f> {
    constants: HashMap<&'f str, Vec<(&'f str, &'f str)>>,
    schemas: HashMap<&'f str, Vec<&'f Schema>>,
    /// Schemas declared as another by name, with that name.
    aliases: HashMap<&'f str, Vec<&'f str>>,
    /// Parameter schemas held in constants.
    param_schemas: HashMap<&'f str, Vec<(&'f str, &'f HeldParam)>>,
    /// Constants holding text, with where their value is written.
    texts: HashMap<&'f str, Vec<&'f DescriptionSite>>,
    /// Identifiers listed in arrays, by name: where a held definition object is registered.
    array_refs: HashMap<&'f str, Vec<&'f Span>>,
    functions: HashMap<&'f str, Vec<&'f Span>>,
}

impl<'f> Names<'f> {
    fn new(files: &'f [(String, FileFacts)]) -> Self {
        let mut names = Names {
            constants: HashMap::new(),
            schemas: HashMap::new(),
            aliases: HashMap::new(),
            param_schemas: HashMap::new(),
            texts: HashMap::new(),
            array_refs: HashMap::new(),
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
            for (k, site) in &facts.texts {
                names.texts.entry(k.as_str()).or_default().push(site);
            }
            for (k, p) in &facts.schemas {
                names.schemas.entry(k.as_str()).or_default().push(p);
            }
            for (k, other) in &facts.schema_aliases {
                names.aliases.entry(k.as_str()).or_default().push(other);
            }
            for (k, p) in &facts.param_schemas {
                (names.param_schemas.entry(k.as_str()).or_default()).push((rel.as_str(), p));
            }
            for (k, span) in &facts.array_refs {
                names.array_refs.entry(k.as_str()).or_default().push(span);
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
            Expr::Path(p) => suffixes(p).chain(syntax::namespaced(p)).find_map(|key| {
                let defs = self.constants.get(key)?;
                let same_file = defs.iter().find(|(f, _)| *f == file);
                same_file.or(defs.first()).map(|(_, v)| v.to_string())
            }),
        }
    }

    /// Fills in what a description written in `file` reads from constants: the constant's
    /// declaration and text, or the text of the names a concatenation joins.
    fn resolve_description(&self, site: &mut DescriptionSite, file: &str) {
        match &mut site.form {
            DescriptionForm::Concat(parts) => {
                for part in parts.iter_mut().filter(|p| !p.literal) {
                    part.text = part
                        .name
                        .as_ref()
                        .and_then(|n| self.resolve(&Expr::Path(n.clone()), file));
                }
                site.text = parts.iter().map(|p| p.text.clone()).collect();
            }
            DescriptionForm::Constant {
                name, declared_at, ..
            } => {
                let declared = suffixes(name).find_map(|key| {
                    let defs = self.texts.get(key)?;
                    defs.iter()
                        .find(|d| d.span.file == file)
                        .or(defs.first())
                        .copied()
                });
                *declared_at = declared.map(|d| Box::new(d.clone()));
                site.text = declared
                    .and_then(|d| d.text.clone())
                    .or_else(|| self.resolve(&Expr::Path(name.clone()), file));
            }
            _ => {}
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

/// The path as written, then without a leading module binding: compilers reach imports through
/// one (`tools_1.ECHO` from tsc, `import_tools.ECHO` from esbuild), the source names them bare.
fn suffixes(path: &str) -> impl Iterator<Item = &str> {
    let unqualified = path.split_once('.').and_then(|(first, rest)| {
        let tsc_alias = first
            .rsplit_once('_')
            .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        (tsc_alias || first.starts_with("import_")).then_some(rest)
    });
    std::iter::once(path).chain(unqualified)
}

/// The order in which duplicate definitions of one name are preferred: explicit registration
/// first, and compiled JavaScript over its TypeScript source, since JavaScript is what runs.
fn rank(c: &Candidate, entry: Option<&str>, reached: &HashSet<String>) -> (bool, u8, bool, bool) {
    let kind = match c.kind {
        CandidateKind::RegisterCall | CandidateKind::Builder => 0,
        CandidateKind::ToolObject { registered: true } => 1,
        CandidateKind::Class => 2,
        CandidateKind::ToolObject { registered: false } => 3,
        CandidateKind::MapEntry => 4,
    };
    // A package may ship the same server twice (ESM and CJS, stdio and HTTP entry points):
    // prefer the file that the launch command runs.
    // A file the entry does not reach (an old build beside the running one) comes last.
    (
        !reached.is_empty() && !reached.contains(&c.definition.file),
        kind,
        is_typescript(&c.definition.file),
        Some(c.definition.file.as_str()) != entry,
    )
}

fn is_typescript(file: &str) -> bool {
    [".ts", ".mts", ".cts", ".tsx"]
        .iter()
        .any(|e| file.ends_with(e))
}

/// `reached`: the files the entry reaches through its imports (empty when not known).
pub fn link(
    files: &[(String, FileFacts)],
    entry: Option<&str>,
    reached: &HashSet<String>,
) -> Vec<Tool> {
    let mut tools = link_tools(files, entry, reached);
    mark_shared_constants(&mut tools);
    tools
}

/// Marks description constants that more than one description reads: editing one would
/// change the others.
fn mark_shared_constants(tools: &mut [Tool]) {
    fn declared(site: &DescriptionSite) -> Option<(String, (usize, usize))> {
        match &site.form {
            DescriptionForm::Constant {
                declared_at: Some(d),
                ..
            } => Some((d.span.file.clone(), d.span.bytes)),
            _ => None,
        }
    }
    fn sites(tool: &mut Tool) -> impl Iterator<Item = &mut DescriptionSite> {
        let params = tool
            .sites
            .schema
            .iter_mut()
            .flat_map(|s| s.params.iter_mut());
        tool.sites
            .description
            .iter_mut()
            .chain(params.filter_map(|p| p.description.as_mut()))
    }
    let mut readers: HashMap<(String, (usize, usize)), usize> = HashMap::new();
    for tool in tools.iter_mut() {
        for site in sites(tool) {
            if let Some(at) = declared(site) {
                *readers.entry(at).or_default() += 1;
            }
        }
    }
    for tool in tools.iter_mut() {
        for site in sites(tool) {
            let many = declared(site).is_some_and(|at| readers[&at] > 1);
            if let DescriptionForm::Constant { shared, .. } = &mut site.form {
                *shared = many;
            }
        }
    }
}

// Long: the linking steps run in order over maps each one builds for the next; the steps themselves are functions.
fn link_tools(
    files: &[(String, FileFacts)],
    entry_file: Option<&str>,
    reached: &HashSet<String>,
) -> Vec<Tool> {
    // Python functions decorated by a registering helper of the package become candidates.
    let helped = {
        let names = Names::new(files);
        super::python::helpers::expand(files, |e, f| names.resolve(e, f))
    };
    let owned;
    let files = if helped.is_empty() {
        files
    } else {
        let mut copy = files.to_vec();
        for (index, candidate) in helped {
            copy[index].1.candidates.push(candidate);
        }
        owned = copy;
        &owned[..]
    };
    let names = Names::new(files);
    let (best, loop_registration) = choose_definitions(files, &names, entry_file, reached);
    // Routes in a file the entry does not reach never run.
    let runs = |rel: &String| reached.is_empty() || reached.contains(rel);
    let dispatches: Vec<(String, &Dispatch)> = resolve_dispatches(files, &names)
        .into_iter()
        .filter(|(_, d)| !matches!(&d.handler, HandlerRef::At(span) if !runs(&span.file)))
        .collect();
    let call_handlers: Vec<&Span> = files
        .iter()
        .filter(|(rel, _)| runs(rel))
        .flat_map(|(_, facts)| &facts.dispatches)
        .filter(|d| d.kind == DispatchKind::CallHandler)
        .filter_map(|d| match &d.handler {
            HandlerRef::At(span) => Some(span),
            HandlerRef::Named(_) => None,
        })
        .collect();
    let mut tools: Vec<Tool> = best
        .into_iter()
        .map(|(name, c)| {
            let file = c.definition.file.as_str();
            let own_handler = c.handler.as_ref().and_then(|h| names.handler_span(h, file));
            let registered = matches!(
                c.kind,
                CandidateKind::RegisterCall
                    | CandidateKind::Builder
                    | CandidateKind::Class
                    | CandidateKind::ToolObject { registered: true }
            );
            let mut schema = names.schema(&c.schema, file);
            let mut sites = c.sites.clone();
            sites.holder = c.holder.clone();
            // Named by its key in a tools map: the key is its name, the entry its registration.
            if let Some(route) = keyed_in_map(c, files).and_then(|(d, _)| d.site.clone()) {
                sites.name = Some(route.label.clone());
                sites.registration = Some(route.site.clone());
                sites.routes = vec![route];
            }
            let (style, handler) = match own_handler {
                h if c.kind == CandidateKind::Builder => (Style::Builder, h),
                h if registered => (Style::Register, h),
                Some(h) if loop_registration => (Style::Register, Some(h)),
                own => match find_dispatch(&name, file, &dispatches, &names) {
                    Some((d, span)) => {
                        if schema.is_none() {
                            // `register(TOOL, ParamsSchema, handler)`: the schema came along.
                            schema = d.beside.iter().find_map(|p| {
                                names.schema(&SchemaRef::Named(p.clone()), &span.file)
                            });
                        }
                        sites.registration = sites.registration.or_else(|| d.registration.clone());
                        sites.routes = dispatch_sites(&name, d, &dispatches);
                        (d.kind.style(file, &span), Some(span))
                    }
                    None => match own {
                        Some(h) => (Style::Other, Some(h)),
                        // Calls are routed through a table the linker cannot follow: the
                        // CallTool handler (of this file first) is where they all go.
                        None => {
                            let shared = call_handlers
                                .iter()
                                .find(|h| h.file == file)
                                .or(call_handlers.first())
                                .map(|h| (*h).clone());
                            let style = match &shared {
                                Some(h) if h.file != file => Style::CrossFile,
                                _ => Style::Other,
                            };
                            (style, shared)
                        }
                    },
                },
            };
            if sites.registration.is_none()
                && let Some(listed) = c.holder.as_deref().and_then(|h| names.array_refs.get(h))
                && listed.len() == 1
            {
                sites.registration = Some(listed[0].clone());
            }
            let (mut params, mut schema_site) =
                schema.map_or((Vec::new(), None), |s| (s.params, Some(s.site)));
            if let Some(site) = &mut sites.description {
                names.resolve_description(site, file);
            }
            for site in schema_site.iter_mut().flat_map(|s| s.params.iter_mut()) {
                let schema_file = site.entry.file.clone();
                if let Some(d) = &mut site.description {
                    names.resolve_description(d, &schema_file);
                    if let Some(p) = params.iter_mut().find(|p| p.name == site.name) {
                        p.description = d.text.clone();
                    }
                }
            }
            sites.schema = schema_site;
            sites.output_keys = names
                .schema(&c.output, file)
                .map(|s| s.params.into_iter().map(|p| p.name).collect())
                .unwrap_or_default();
            Tool {
                description: sites.description.as_ref().and_then(|d| d.text.clone()),
                params,
                name,
                style,
                definition: c.definition.clone(),
                handler,
                sites,
            }
        })
        .collect();
    super::name_tables::route(&mut tools, files, |e, f| names.resolve(e, f));
    tools
}

/// The best definition of each tool name, and whether some registration call takes its name
/// from a variable (a loop over definition objects).
fn choose_definitions<'f>(
    files: &'f [(String, FileFacts)],
    names: &Names,
    entry_file: Option<&str>,
    reached: &HashSet<String>,
) -> (BTreeMap<String, &'f Candidate>, bool) {
    let mut best: BTreeMap<String, &Candidate> = BTreeMap::new();
    let mut loop_registration = false;
    for (rel, facts) in files {
        for c in &facts.candidates {
            let keyed =
                || keyed_in_map(c, files).and_then(|(d, file)| names.resolve(&d.name, file));
            let Some(name) = names.resolve(&c.name, rel).or_else(keyed) else {
                // `server.tool(t.name, ...)` inside a loop: the names are in the tool objects.
                loop_registration |= c.kind == CandidateKind::RegisterCall;
                continue;
            };
            if !crate::syntax::could_name_a_tool(&name) {
                continue;
            }
            let entry = best.entry(name).or_insert(c);
            if rank(c, entry_file, reached) < rank(entry, entry_file, reached) {
                *entry = c;
            }
        }
    }
    (best, loop_registration)
}

/// For a builder chain held in a variable with no name of its own, the tools-map entry that
/// names it (`{ read_x: readX }`), with its file.
fn keyed_in_map<'f>(
    c: &Candidate,
    files: &'f [(String, FileFacts)],
) -> Option<(&'f Dispatch, &'f str)> {
    let holder = c
        .holder
        .as_deref()
        .filter(|_| c.kind == CandidateKind::Builder)?;
    if c.name != Expr::Unknown {
        return None;
    }
    files.iter().find_map(|(rel, facts)| {
        facts
            .dispatches
            .iter()
            .find(|d| {
                d.kind == DispatchKind::MapKey
                    && matches!(&d.handler, HandlerRef::Named(h) if h == holder)
            })
            .map(|d| (d, rel.as_str()))
    })
}

/// Every dispatch whose name resolves, with that name. A call that passes a definition object
/// (`register(ECHO_TOOL, handler)`) names the tool that object defines.
fn resolve_dispatches<'f>(
    files: &'f [(String, FileFacts)],
    names: &Names,
) -> Vec<(String, &'f Dispatch)> {
    let mut holders: HashMap<&str, String> = HashMap::new();
    for (rel, facts) in files {
        for c in &facts.candidates {
            if let (Some(h), Some(name)) = (&c.holder, names.resolve(&c.name, rel)) {
                holders.insert(h.as_str(), name);
            }
        }
    }
    let mut out = Vec::new();
    for (rel, facts) in files {
        for d in &facts.dispatches {
            let name = match (&d.kind, &d.name) {
                (DispatchKind::RefCall, Expr::Path(p)) => {
                    suffixes(p).find_map(|k| holders.get(k).cloned())
                }
                _ => names.resolve(&d.name, rel),
            };
            if let Some(name) = name {
                out.push((name, d));
            }
        }
    }
    out
}

/// The routing sites of a tool: the chosen dispatch and any other of the same kind for the
/// same name (a name can be routed twice, say in a switch and a guard before it), a `case`
/// and an `if` alike: a copy routed by the `switch` alone missed the wrapper that cuts the
/// original's answer, and one routed by the wrapper alone answered "Unknown tool".
fn dispatch_sites(
    name: &str,
    chosen: &Dispatch,
    dispatches: &[(String, &Dispatch)],
) -> Vec<mcpevol_core::inventory::Route> {
    let branch = |k: DispatchKind| matches!(k, DispatchKind::Case | DispatchKind::If);
    dispatches
        .iter()
        .filter(|(n, d)| {
            n == name
                && (d.kind == chosen.kind || (branch(d.kind) && branch(chosen.kind)))
                && d.on_tool_name == chosen.on_tool_name
        })
        .filter_map(|(_, d)| d.site.clone())
        .collect()
}

/// The handler for a listed tool: a dispatch on something named like a tool name beats one on
/// anything else (a decoy `switch (format)`), then switch and if beat maps, then the same file
/// (and language) as the definition beats another.
fn find_dispatch<'d>(
    name: &str,
    def_file: &str,
    dispatches: &[(String, &'d Dispatch)],
    names: &Names,
) -> Option<(&'d Dispatch, Span)> {
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
                // Beside a `case` of the name, an `if` on it is a step before or after the
                // handler (a wrapper that cuts its answer), not the handler.
                d.kind == DispatchKind::If,
            )
        })
        .map(|(d, span)| (*d, span))
}
