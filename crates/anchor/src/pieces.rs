//! Parsing one large JavaScript or TypeScript file in pieces, one per core. Tree-sitter parses a
//! text on one thread (a 7.9 MB bundle takes about 0.65 s), so a bundle is cut between
//! top-level statements and each piece is parsed alone, in place (its included range keeps the
//! file's byte and row positions).
//!
//! A cut is only tried before a line that starts, at its first column, with a word that can
//! only begin a statement there (`var`, `function`, `export`, ...). A cut that falls inside a
//! function body, a string, a comment or an unfinished expression leaves a piece with a syntax
//! error, so any error in any piece discards the pieces and the caller parses the file whole:
//! the pieces are used only when each one is a complete, error-free program.

use rayon::prelude::*;
use tree_sitter::{Parser, Point, Range, Tree};

use super::grammar::Lang;
use super::trees::point_at;

/// Below this size a file is parsed whole: the pieces would save less than they risk redoing.
pub const PIECES_MIN_BYTES: usize = 1024 * 1024;

/// Words that start a statement when they open a line at its first column; none of them can
/// continue the expression of the line before.
const STATEMENT_STARTS: &[&str] = &[
    "var ",
    "const ",
    "let ",
    "function ",
    "function*",
    "async function",
    "class ",
    "export ",
    "import ",
];

/// The trees of `src` parsed in up to `pieces` pieces on the current thread pool, in file order;
/// `None` when the file should be parsed whole (too small, no cut found, or a piece with an
/// error).
pub fn parse(src: &str, lang: Lang, pieces: usize) -> Option<Vec<Tree>> {
    if lang == Lang::Python || pieces < 2 || src.len() < PIECES_MIN_BYTES {
        return None;
    }
    let ranges = ranges(src, &cuts(src, pieces));
    if ranges.len() < 2 {
        return None;
    }
    let trees: Vec<Option<Tree>> = ranges
        .into_par_iter()
        .map(|range| parse_range(src, lang, range))
        .collect();
    trees.into_iter().collect()
}

/// The part of `src` in `range` parsed alone, in place; None where it has a syntax error.
pub(crate) fn parse_range(src: &str, lang: Lang, range: Range) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.language()).ok()?;
    parser.set_included_ranges(&[range]).ok()?;
    parser
        .parse(src, None)
        .filter(|t| !t.root_node().has_error())
}

/// Up to `pieces - 1` byte offsets to cut at, each the start of a statement-opening line at or
/// after an equal share of the file.
pub(crate) fn cuts(src: &str, pieces: usize) -> Vec<usize> {
    let bytes = src.as_bytes();
    let share = src.len() / pieces;
    let mut cuts: Vec<usize> = Vec::new();
    for k in 1..pieces {
        let from = (k * share).max(cuts.last().map_or(0, |c| c + 1));
        let next = bytes[from..]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| from + i + 1)
            .take_while(|&at| at < (k + 1) * share)
            .find(|&at| {
                STATEMENT_STARTS
                    .iter()
                    .any(|w| bytes[at..].starts_with(w.as_bytes()))
            });
        if let Some(at) = next {
            cuts.push(at);
        }
    }
    cuts
}

/// The pieces' ranges, with the row and column of each bound.
pub(crate) fn ranges(src: &str, cuts: &[usize]) -> Vec<Range> {
    let bounds: Vec<(usize, Point)> = std::iter::once(0)
        .chain(cuts.iter().copied())
        .chain([src.len()])
        .map(|at| (at, point_at(src, at)))
        .collect();
    bounds
        .windows(2)
        .map(|w| Range {
            start_byte: w[0].0,
            end_byte: w[1].0,
            start_point: w[0].1,
            end_point: w[1].1,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statements(n: usize) -> String {
        (0..n)
            .map(|i| format!("var v{i} = {{ a: [{i}, \"x\"] }};\nfunction f{i}(a) {{\n  return a + {i};\n}}\n"))
            .collect()
    }

    #[test]
    fn pieces_cover_the_file_and_keep_its_rows() {
        let src = statements(20_000);
        let trees = parse(&src, Lang::JavaScript, 3).expect("cut in pieces");
        assert_eq!(trees.len(), 3);
        let mut next = 0;
        for tree in &trees {
            let root = tree.root_node();
            let first = root.child(0).unwrap();
            assert_eq!(first.start_byte(), next, "pieces follow each other");
            assert_eq!(first.start_position().column, 0);
            let row = src[..first.start_byte()].matches('\n').count();
            assert_eq!(first.start_position().row, row);
            next = root.child(root.child_count() - 1).unwrap().end_byte() + 1;
        }
        assert_eq!(next, src.len(), "the last piece ends the file");
    }

    #[test]
    fn a_cut_inside_a_function_body_or_a_template_falls_back_to_one_parse() {
        // Statement-like lines at column 0 inside a body and a template literal: the only
        // places a cut can fall.
        let body: String = (0..60_000).map(|i| format!("var x{i} = {i};\n")).collect();
        let src = format!("function outer() {{\n{body}}}\n");
        assert!(parse(&src, Lang::JavaScript, 2).is_none());
        let src = format!("const t = `\n{body}`;\n");
        assert!(parse(&src, Lang::JavaScript, 2).is_none());
    }

    #[test]
    fn a_small_file_or_one_piece_is_parsed_whole() {
        assert!(parse(&statements(10), Lang::JavaScript, 2).is_none());
        assert!(parse(&statements(20_000), Lang::JavaScript, 1).is_none());
    }
}
