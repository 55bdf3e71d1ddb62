//! The rules backend's edits, pinned: for every fixture, what each of the 11 operators proposes
//! (summary, claims, hunks) or why it does not apply, as one snapshot per fixture in
//! `snapshots/rules-<fixture>.snap`. No node, no server: a change to a rule shows up here as
//! exactly the fixtures it changes. Review with `cargo insta review` (see docs/development.md).

use crate::common;

use std::fmt::Write;
use std::path::Path;

use mcpevol::describe_check;
use mcpevol::inventory::{DescriptionForm, DescriptionSite, Inventory};
use mcpevol::mutate::{Aliases, ConstraintKind, Context, rules};
use mcpevol::operators::Builtin;
use mcpevol::schema::ChangeKind;

/// The seed every proposal here uses: fixed, so that snapshots only change with the rules.
const SEED: u64 = 11;

fn proposals(dir: &Path) -> String {
    let root = common::relative_to_repo(dir);
    let root = common::repo().join(root);
    let inventory = mcpevol::anchor::anchor(&root).expect("fixtures anchor");
    let mut out = String::new();
    for &op in rules::OPERATORS {
        let ctx = Context {
            root: &root,
            inventory: &inventory,
            seed: SEED,
            avoid: &[],
            answering: &[],
            multiline: &[],
            json: &[],
            constraint: ConstraintKind::DescribedBound,
            aliases: Aliases::Allowed,
        };
        writeln!(out, "## {op}").unwrap();
        match rules::propose(op, &ctx) {
            Err(e) => writeln!(out, "does not apply: {e}").unwrap(),
            Ok(p) => {
                writeln!(out, "{}", p.summary).unwrap();
                writeln!(out, "targets: {:?}; added: {:?}", p.targets, p.added).unwrap();
                for effect in &p.effects {
                    writeln!(out, "claims: {}", serde_json::to_string(effect).unwrap()).unwrap();
                }
                for h in &p.hunks {
                    writeln!(out, "--- {}", h.file).unwrap();
                    for line in h.search.lines() {
                        writeln!(out, "-{line}").unwrap();
                    }
                    for line in h.replace.lines() {
                        writeln!(out, "+{line}").unwrap();
                    }
                }
            }
        }
        writeln!(out).unwrap();
    }
    out
}

#[test]
fn every_operators_edits_on_every_fixture_match_their_snapshot() {
    common::require_npm_install(&common::repo().join("fixtures"));
    insta::glob!("../../fixtures", "*/package.json", |path| {
        let dir = path.parent().expect("package.json is in a folder");
        let name = common::name_of(dir);
        if name.starts_with(['.', '_']) || name == "bad" {
            return;
        }
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("rules-{name}"), proposals(dir));
        });
    });
}

/// The fixtures whose descriptions are written in every form: each description operator forced
/// on each of their tools.
const DESCRIPTION_FIXTURES: [&str; 2] = ["description-forms", "builder-map"];

/// The operators whose edits write descriptions (O3 and O7 write none).
const DESCRIBING: [Builtin; 9] = [
    Builtin::ToolAddition,
    Builtin::ToolReplacement,
    Builtin::ToolIntegration,
    Builtin::FlexibleExpansion,
    Builtin::ConstraintMutation,
    Builtin::InterfaceRefactoring,
    Builtin::ToolDescriptionUpdate,
    Builtin::ParameterDescriptionUpdate,
    Builtin::JointDescriptionUpdate,
];

/// The fixture's files with the hunks applied, in a scratch copy.
fn applied(root: &Path, hunks: &[mcpevol::hunks::Hunk]) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in walk(root) {
        let rel = entry.strip_prefix(root).unwrap();
        std::fs::create_dir_all(copy.path().join(rel).parent().unwrap()).unwrap();
        std::fs::copy(&entry, copy.path().join(rel)).unwrap();
    }
    for h in hunks {
        let path = copy.path().join(&h.file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.matches(&h.search).count(),
            1,
            "hunk not unique in {}",
            h.file
        );
        std::fs::write(&path, text.replacen(&h.search, &h.replace, 1)).unwrap();
    }
    copy
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The tool list a client would see, as far as descriptions go, from an anchored package.
fn listed(inventory: &Inventory) -> Vec<mcpevol::listed::ListedTool> {
    inventory
        .tools
        .iter()
        .map(|t| {
            let props: serde_json::Map<String, serde_json::Value> = t
                .params
                .iter()
                .map(|p| (p.name.clone(), serde_json::json!({ "description": p.description })))
                .collect();
            serde_json::json!({ "name": t.name, "description": t.description, "inputSchema": { "type": "object", "properties": props } }).into()
        })
        .collect()
}

/// How a description is written, as the snapshot shows it: the expression's source (and the
/// constant's declared value).
fn written(root: &Path, site: &DescriptionSite) -> String {
    let text = std::fs::read_to_string(root.join(&site.span.file)).unwrap();
    let own = &text[site.span.bytes.0..site.span.bytes.1];
    match &site.form {
        DescriptionForm::Constant {
            declared_at: Some(d),
            ..
        } => {
            let decl = std::fs::read_to_string(root.join(&d.span.file)).unwrap();
            format!("{own} = {}", &decl[d.span.bytes.0..d.span.bytes.1])
        }
        _ => own.to_string(),
    }
}

fn descriptions(root: &Path, inventory: &Inventory) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in &inventory.tools {
        if let Some(d) = &t.sites.description {
            out.push((t.name.clone(), written(root, d)));
        }
        for p in t.sites.schema.iter().flat_map(|s| &s.params) {
            if let Some(d) = &p.description {
                out.push((format!("{}.{}", t.name, p.name), written(root, d)));
            }
        }
    }
    out
}

/// Each description operator on each tool of the description fixtures: why it does not apply
/// (an expression only running the code can tell, a constant two tools read), or the
/// descriptions it changes, as written in the source after the edit. Every change keeps the
/// original text and its form, and passes the description check.
#[test]
fn every_description_operator_keeps_or_rewrites_every_form_of_description() {
    common::require_npm_install(&common::repo().join("fixtures"));
    for fixture in DESCRIPTION_FIXTURES {
        let root = common::repo().join("fixtures").join(fixture);
        let inventory = mcpevol::anchor::anchor(&root).unwrap();
        let before = descriptions(&root, &inventory);
        let mut out = String::new();
        for tool in &inventory.tools {
            writeln!(out, "# {}", tool.name).unwrap();
            let others: Vec<String> = inventory
                .names()
                .into_iter()
                .filter(|n| *n != tool.name)
                .map(String::from)
                .collect();
            for op in DESCRIBING {
                if let Err(why) = rules::applies(op, tool, &inventory.tools) {
                    writeln!(out, "## {op}: does not apply: {why}").unwrap();
                    continue;
                }
                let ctx = Context {
                    root: &root,
                    inventory: &inventory,
                    seed: SEED,
                    avoid: &others,
                    answering: &[],
                    multiline: &[],
                    json: &[],
                    constraint: ConstraintKind::DescribedBound,
                    aliases: Aliases::Allowed,
                };
                let p = rules::propose(op, &ctx)
                    .unwrap_or_else(|e| panic!("{op} on {}: {e}", tool.name));
                writeln!(out, "## {op}: {}", p.summary).unwrap();
                let copy = applied(&root, &p.hunks);
                let after_inventory = mcpevol::anchor::anchor(copy.path()).unwrap();
                let after = descriptions(copy.path(), &after_inventory);
                for (what, now) in &after {
                    let was = before.iter().find(|(w, _)| w == what).map(|(_, s)| s);
                    if was != Some(now) {
                        writeln!(out, "{what}:\n{}", indent(now)).unwrap();
                    }
                }
                let (old, new) = (listed(&inventory), listed(&after_inventory));
                let changes = mcpevol::schema::diff(&old, &new);
                if let Err(refused) = describe_check::check(&old, &new, &changes, Some(op)) {
                    panic!("{op} on {}: {refused}", tool.name);
                }
                for t in &inventory.tools {
                    let now = after_inventory.tool(&t.name);
                    if let (Some(a), Some(b)) = (
                        &t.sites.description,
                        now.and_then(|n| n.sites.description.as_ref()),
                    ) {
                        assert_eq!(
                            std::mem::discriminant(&a.form),
                            std::mem::discriminant(&b.form),
                            "{op} changed the form of {}",
                            t.name
                        );
                    }
                }
            }
            writeln!(out).unwrap();
        }
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("descriptions-{fixture}"), out);
        });
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_constraint_mutation_never_bounds_a_parameter_that_has_an_upper_bound_already() {
    // A second `maxLength` key or `.max()` would leave the schema as it was (the contract then
    // drops the change) or state two limits at once.
    let mut proposed = 0;
    let mut problems = Vec::new();
    for dir in common::fixtures() {
        let inventory = mcpevol::anchor::anchor(&dir).expect("fixtures anchor");
        for seed in 0..12 {
            let ctx = Context {
                root: &dir,
                inventory: &inventory,
                seed,
                avoid: &[],
                answering: &[],
                multiline: &[],
                json: &[],
                constraint: ConstraintKind::DescribedBound,
                aliases: Aliases::Allowed,
            };
            let Ok(p) = rules::propose(Builtin::ConstraintMutation, &ctx) else {
                continue;
            };
            proposed += 1;
            // "Constraint Mutation: `tool`.`param` is bounded ..."
            let named: Vec<&str> = p.summary.split('`').collect();
            let (tool, param) = (named[1], named[3]);
            let bounded = inventory.tools.iter().any(|t| {
                t.name == tool
                    && (t.params.iter()).any(|q| q.name == param && q.shape.max.is_some())
            });
            if bounded {
                problems.push(format!("{}: {}", dir.display(), p.summary));
            }
        }
    }
    assert!(proposed > 12, "only {proposed} proposals");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_constraint_mutation_told_not_to_describe_its_bound_leaves_every_description_as_it_was() {
    // A release recipe aiming at a bare constraint (P8) asks for this; the same bound with its
    // sentence is a constraint with its description (P9).
    let (mut described, mut bare) = (0, 0);
    for dir in common::fixtures() {
        let inventory = mcpevol::anchor::anchor(&dir).expect("fixtures anchor");
        for seed in 0..4 {
            let kinds = |describe: bool| {
                let ctx = Context {
                    root: &dir,
                    inventory: &inventory,
                    seed,
                    avoid: &[],
                    answering: &[],
                    multiline: &[],
                    json: &[],
                    constraint: if describe {
                        ConstraintKind::DescribedBound
                    } else {
                        ConstraintKind::Bound
                    },
                    aliases: Aliases::Allowed,
                };
                let p = rules::propose(Builtin::ConstraintMutation, &ctx).ok()?;
                let copy = applied(&dir, &p.hunks);
                let after = mcpevol::anchor::anchor(copy.path()).unwrap();
                let changes = mcpevol::schema::diff(&listed(&inventory), &listed(&after));
                Some((
                    p.summary,
                    changes.iter().map(|c| c.kind()).collect::<Vec<_>>(),
                ))
            };
            let (Some((with, with_kinds)), Some((without, without_kinds))) =
                (kinds(true), kinds(false))
            else {
                continue;
            };
            assert_eq!(
                with,
                without,
                "{}: the same bound either way",
                dir.display()
            );
            // (A schema built in code is not listed from the sources: no change shows there.)
            assert!(
                !without_kinds.contains(&ChangeKind::ParamDescriptionChanged),
                "{}: {without}: {without_kinds:?}",
                dir.display()
            );
            bare += 1;
            described += with_kinds.contains(&ChangeKind::ParamDescriptionChanged) as usize;
        }
    }
    assert!(bare >= 8, "only {bare} bounds proposed");
    assert!(
        described > 0,
        "no fixture's bound is ever described: the test shows nothing"
    );
}
