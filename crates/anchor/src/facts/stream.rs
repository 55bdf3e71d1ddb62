//! Reading one large JavaScript or TypeScript file piece by piece, each piece's tree dropped
//! once it is read, so that anchoring holds the trees of a piece or two (one per core), never
//! the whole file's: a 6.6 MB bundle's tree takes about 170 MB, 27 times the file.
//!
//! Two passes, each parsing every piece (`pieces.rs` cuts between top-level statements). The
//! first gathers the claims that cross statements: objects declared by name, registrations
//! (which claim the objects passed to them), definition factories and module exports. The
//! second reads each piece with those claims; an object another piece declares is found by
//! parsing that one statement alone. The facts are those of the file read whole, in the same
//! order (`tests/it/anchor_fixtures.rs` compares them on a bundle).

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use rayon::prelude::*;
use tree_sitter::{Node, Tree};

use super::factories::{Factory, factories_in};
use super::modules::exports_in;
use super::registrars::Slots;
use super::{Candidate, FileFacts, QueryKind, Reader, matches_in, text, unwrap};
use crate::grammar::Lang;
use crate::pieces;

/// About the size of a piece: a piece's tree takes some 27 times its text (1.7 MB here).
pub const PIECE_BYTES: usize = 64 * 1024;
/// Pieces parsed at once at most, one per core up to this: the trees held at once do not grow
/// with the machine.
const AT_ONCE: usize = 4;

/// The claims over the whole file that the first pass gathers.
#[derive(Default)]
struct Claims {
    /// Objects declared by name, the last in file order: the object's bytes and its top-level
    /// statement's.
    declared: HashMap<String, (Range<usize>, Range<usize>)>,
    /// Top-level statements declaring objects, by start byte: the index of each one's slot.
    statements: HashMap<usize, usize>,
    registered_objects: HashSet<usize>,
    register_calls: HashSet<usize>,
    factories: HashMap<String, Factory>,
    /// Functions that register the tool their caller names (`registrars.rs`).
    registrars: HashMap<String, Slots>,
    /// Keys exported at the top level, with their statements.
    exports: Vec<(String, Range<usize>)>,
}

/// One piece as the second pass reads it: the facts of its registrations, its other facts, and
/// the tools its calls of definition factories make, kept apart to be joined in file order.
struct Piece {
    registered: FileFacts,
    /// The tools its calls of registering functions register.
    by_registrars: FileFacts,
    other: FileFacts,
    made: Vec<Candidate>,
}

/// The facts of `src`, read in pieces of about `piece_bytes`; None where it cannot be cut, or a
/// piece alone has a syntax error (the caller parses it whole).
pub fn read(src: &str, rel: &str, lang: Lang, piece_bytes: usize) -> Option<FileFacts> {
    if lang == Lang::Python {
        return None;
    }
    let count = src.len().div_ceil(piece_bytes.max(1));
    let ranges = pieces::ranges(src, &pieces::cuts(src, count));
    if ranges.len() < 2 {
        return None;
    }
    let gathered = in_turn(&ranges, |r| gather(src, rel, lang, r));
    let claims = Claims::join(gathered?);
    let read = in_turn(&ranges, |r| read_piece(src, rel, lang, r, &claims));
    let mut facts = FileFacts::default();
    let mut others = Vec::new();
    let mut made = Vec::new();
    let mut by_registrars = Vec::new();
    for piece in read? {
        facts.append(piece.registered);
        by_registrars.push(piece.by_registrars);
        others.push(piece.other);
        made.extend(piece.made);
    }
    for other in by_registrars.into_iter().chain(others) {
        facts.append(other);
    }
    facts
        .candidates
        .extend(module_tool(src, rel, lang, &claims));
    facts.candidates.extend(made);
    Some(facts)
}

/// `f` of each piece in file order, [`AT_ONCE`] pieces at a time on the current pool; None
/// where any piece gives None.
fn in_turn<T: Send>(
    ranges: &[tree_sitter::Range],
    f: impl Fn(tree_sitter::Range) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    let at_once = rayon::current_num_threads().clamp(1, AT_ONCE);
    let mut out = Vec::with_capacity(ranges.len());
    for chunk in ranges.chunks(at_once) {
        let done: Option<Vec<T>> = chunk.par_iter().map(|r| f(*r)).collect();
        out.extend(done?);
    }
    Some(out)
}

/// The first pass over one piece.
fn gather(src: &str, rel: &str, lang: Lang, range: tree_sitter::Range) -> Option<Claims> {
    let tree = pieces::parse_range(src, lang, range)?;
    let root = tree.root_node();
    let bytes = root.byte_range();
    let q = lang.queries();
    let matches = matches_in(&q.all, root, src, bytes.clone());
    let mut out = Claims::default();
    let mut declared = Vec::new();
    let mut registering = Reader::new(src, rel);
    for m in &matches {
        match q.kind(m.pattern) {
            QueryKind::Declarations => {
                if let (Some(name), Some(value)) = (m.get("name"), m.get("value").map(unwrap))
                    && m.get("declarator").is_some()
                    && value.kind() == "object"
                {
                    let statement = top_level(root, value).byte_range();
                    declared.push((text(name, src).to_string(), value.byte_range(), statement));
                }
            }
            // Only its claims: its facts are read in the second pass.
            QueryKind::Register => registering.register_call(m),
            _ => {}
        }
    }
    for (name, object, statement) in declared {
        out.declared.insert(name, (object, statement));
    }
    out.registered_objects = registering.registered_objects;
    out.register_calls = registering.register_calls;
    out.registrars = registering.registrars;
    out.factories = factories_in(root, &bytes, src).into_iter().collect();
    out.exports = exports_in(root, &bytes, src);
    Some(out)
}

impl Claims {
    /// The pieces' claims in file order, as a reading of the whole file makes them.
    fn join(pieces: Vec<Claims>) -> Claims {
        let mut all = Claims::default();
        for piece in pieces {
            all.declared.extend(piece.declared);
            all.registered_objects.extend(piece.registered_objects);
            all.register_calls.extend(piece.register_calls);
            all.factories.extend(piece.factories);
            all.registrars.extend(piece.registrars);
            all.exports.extend(piece.exports);
        }
        let mut starts: Vec<usize> = all.declared.values().map(|(_, s)| s.start).collect();
        starts.sort_unstable();
        starts.dedup();
        all.statements = starts
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s, i))
            .collect();
        all
    }
}

/// The second pass over one piece.
fn read_piece(
    src: &str,
    rel: &str,
    lang: Lang,
    range: tree_sitter::Range,
    claims: &Claims,
) -> Option<Piece> {
    let tree = pieces::parse_range(src, lang, range)?;
    let root = tree.root_node();
    let bytes = root.byte_range();
    let slots: Vec<OnceLock<Option<Tree>>> =
        claims.statements.iter().map(|_| OnceLock::new()).collect();
    let lookup = Lookup {
        claims,
        piece: Some(root),
        slots: &slots,
        src,
        lang,
    };
    let find = |name: &str| lookup.find(name);
    let q = lang.queries();
    let matches = matches_in(&q.all, root, src, bytes.clone());
    let mut reader = Reader {
        registered_objects: claims.registered_objects.clone(),
        register_calls: claims.register_calls.clone(),
        elsewhere: Some(&find),
        ..Reader::new(src, rel)
    };
    for m in matches
        .iter()
        .filter(|m| q.kind(m.pattern) == QueryKind::Register)
    {
        reader.register_call(m);
    }
    let registered = std::mem::take(&mut reader.facts);
    reader.registrars = claims.registrars.clone();
    reader.registrar_tools(&[(root, bytes.clone())]);
    let by_registrars = std::mem::take(&mut reader.facts);
    for m in &matches {
        reader.read_match(q.kind(m.pattern), m);
    }
    let made = reader.made_by(&[(root, bytes)], &claims.factories);
    Some(Piece {
        registered,
        by_registrars,
        other: reader.facts,
        made,
    })
}

/// The tool the file's top-level exports make, read from those statements alone.
fn module_tool(src: &str, rel: &str, lang: Lang, claims: &Claims) -> Option<Candidate> {
    if claims.exports.is_empty() {
        return None;
    }
    let mut statements: Vec<Range<usize>> = claims.exports.iter().map(|(_, s)| s.clone()).collect();
    statements.dedup();
    let trees: Vec<Tree> = (statements.iter())
        .map(|s| parse_statement(src, lang, s))
        .collect::<Option<_>>()?;
    let slots: Vec<OnceLock<Option<Tree>>> =
        claims.statements.iter().map(|_| OnceLock::new()).collect();
    let lookup = Lookup {
        claims,
        piece: None,
        slots: &slots,
        src,
        lang,
    };
    let find = |name: &str| lookup.find(name);
    let reader = Reader {
        registered_objects: claims.registered_objects.clone(),
        register_calls: claims.register_calls.clone(),
        elsewhere: Some(&find),
        ..Reader::new(src, rel)
    };
    let parts: Vec<_> = (trees.iter().zip(statements))
        .map(|(t, s)| (t.root_node(), s))
        .collect();
    reader.module_tool(&parts)
}

/// Finds declared objects in the piece being read, or by parsing the statement that declares
/// them, once per piece.
struct Lookup<'a> {
    claims: &'a Claims,
    piece: Option<Node<'a>>,
    slots: &'a [OnceLock<Option<Tree>>],
    src: &'a str,
    lang: Lang,
}

impl<'a> Lookup<'a> {
    fn find(&self, name: &str) -> Option<Node<'a>> {
        let (object, statement) = self.claims.declared.get(name)?;
        let within = match self.piece {
            Some(root) if root.byte_range().contains(&statement.start) => root,
            _ => {
                let slot = &self.slots[self.claims.statements[&statement.start]];
                let tree = slot.get_or_init(|| parse_statement(self.src, self.lang, statement));
                tree.as_ref()?.root_node()
            }
        };
        let mut node = within.descendant_for_byte_range(object.start, object.end)?;
        while node.byte_range() == *object {
            if node.kind() == "object" {
                return Some(node);
            }
            node = node.parent()?;
        }
        None
    }
}

/// One top-level statement parsed alone, in place.
fn parse_statement(src: &str, lang: Lang, statement: &Range<usize>) -> Option<Tree> {
    let cut = [statement.start, statement.end];
    let range = pieces::ranges(src, &cut)[1];
    pieces::parse_range(src, lang, range)
}

/// The top-level statement `node` is in.
fn top_level<'t>(root: Node<'t>, node: Node<'t>) -> Node<'t> {
    let mut at = node;
    while let Some(parent) = at.parent() {
        if parent.id() == root.id() {
            break;
        }
        at = parent;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool whose configuration is declared at the top of the file and registered by name
    /// at its end, statements apart.
    fn far_apart() -> String {
        let mut src = String::from(
            "const weatherConfig = { description: \"Get the weather for a city\", inputSchema: { city: z.string() } };\n",
        );
        for i in 0..2_000 {
            src += &format!("var filler{i} = {{ a: [{i}, \"x\"] }};\n");
        }
        src += "server.registerTool(\"get_weather\", weatherConfig, async ({ city }) => ({ content: [] }));\n";
        src
    }

    #[test]
    fn a_configuration_declared_in_another_piece_is_read_as_in_the_whole_file() {
        let src = far_apart();
        let tree = crate::parse(&src, Lang::JavaScript).unwrap();
        let whole = super::super::read_in_parts(&tree, &src, "f", Lang::JavaScript, 1);
        let streamed = read(&src, "f", Lang::JavaScript, 8 * 1024).expect("cut in pieces");
        assert_eq!(format!("{streamed:?}"), format!("{whole:?}"));
        let tool = &streamed.candidates[0];
        assert!(
            format!("{tool:?}").contains("Get the weather for a city"),
            "{tool:?}"
        );
    }
}
