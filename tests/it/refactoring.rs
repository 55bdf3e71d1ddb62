//! Interface Refactoring as a release asks for it (P6, a new option beside the tool's new
//! description) never prunes: on a tool where no new parameter could show on its answers it
//! does not apply, where a round's refactoring prunes one instead (P1 + P11).

use crate::common;

use mcpevol::anchor::anchor;
use mcpevol::mutate::{Aliases, ConstraintKind, Context, MutateError, Proposal, rules};
use mcpevol::operators::Builtin;

/// A tool that already cuts its answer by characters (`max_chars`), whose answer was one line
/// of text: no parameter the rules add could show on it.
fn one_line_reader() -> tempfile::TempDir {
    common::package_of(&[
        (
            "package.json",
            r#"{ "name": "pages", "version": "1.0.0", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "const { z } = require('zod');\n\
             server.tool('read_page', 'Read a page of the site.', {\n\
             \x20   path: z.string().describe('Path of the page'),\n\
             \x20   max_chars: z.number().optional().describe('Characters to keep'),\n\
             \x20   lang: z.string().optional().describe('Language of the page'),\n\
             }, async ({ path, max_chars, lang }) => {\n\
             \x20   const text = `page ${path} in ${lang ?? 'en'}`;\n\
             \x20   return { content: [{ type: 'text', text: text.slice(0, max_chars ?? 1000) }] };\n\
             });\n",
        ),
    ])
}

/// Interface Refactoring on `read_page`, asked for `kind`, told its answer was one line.
fn refactor(kind: ConstraintKind, seed: u64) -> Result<Proposal, MutateError> {
    let dir = one_line_reader();
    let inventory = anchor(dir.path()).unwrap();
    let answered = ["read_page".to_string()];
    let ctx = Context {
        root: dir.path(),
        inventory: &inventory,
        seed,
        avoid: &[],
        answering: &answered,
        multiline: &[],
        json: &[],
        constraint: kind,
        aliases: Aliases::Refused,
    };
    rules::propose(Builtin::InterfaceRefactoring, &ctx)
}

#[test]
fn a_rounds_refactoring_prunes_a_parameter_where_no_new_one_could_show() {
    let proposal = refactor(ConstraintKind::DescribedBound, 3).expect("it prunes");
    assert!(
        proposal.summary.contains("removed `"),
        "{}",
        proposal.summary
    );
}

#[test]
fn a_releases_refactoring_asked_for_a_new_option_does_not_apply_where_none_could_show() {
    for seed in 0..8 {
        match refactor(ConstraintKind::NewOption, seed) {
            Err(MutateError::NotApplicable { why, .. }) => {
                assert!(why.contains("would show"), "{why}")
            }
            other => panic!("seed {seed}: {other:?}"),
        }
    }
}
