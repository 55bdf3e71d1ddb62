//! Proposals written out by a test, for the given-edits backend: hunks of a fixture's
//! `server.js` and the claims that go with them.

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::mutate::{Aliases, ConstraintKind, Context, Proposal, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::Effect;
use mcpevol::version_record::{RoundRecord, read_round};
use mcpevol::workspace::Workspace;

/// `search` made into `replace` in `server.js`.
pub fn hunk(search: &str, replace: &str) -> Hunk {
    Hunk {
        file: "server.js".into(),
        search: search.into(),
        replace: replace.into(),
    }
}

/// A proposal of `operator` on `targets`, adding `added`, made of `hunks`, claiming `effects`.
pub fn proposal(
    operator: &str,
    targets: &[&str],
    added: &[&str],
    hunks: Vec<Hunk>,
    effects: Vec<Effect>,
) -> Backend {
    let names = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    Backend::Given {
        proposal: Box::new(Proposal {
            operator: mcpevol::operators::OperatorId::parse(operator),
            targets: names(targets),
            added: names(added),
            summary: format!("{operator} on {}", targets.join(", ")),
            hunks,
            effects,
        }),
    }
}

/// One round of `backend` on the workspace `work`: its status and reason, and its record when
/// it committed.
pub fn one_round(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    backend: &Backend,
) -> (RoundStatus, String, Option<RoundRecord>) {
    let options = EvolveOptions {
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 7)
    };
    let rounds = rt
        .block_on(evolve::evolve(work, backend, &options, |_| {}))
        .unwrap();
    let reason = rounds[0].reason.clone().unwrap_or_default();
    let ws = Workspace::open(work).unwrap();
    let record = (rounds[0].status == RoundStatus::Committed)
        .then(|| read_round(&ws, rounds[0].version).unwrap().unwrap());
    (rounds[0].status, reason, record)
}

/// The rules' `op` on `tool` of the workspace `work`, drawn with seed 1 (every other tool
/// avoided).
pub fn rules_on(work: &std::path::Path, op: Builtin, tool: &str) -> Proposal {
    rules_on_as(work, op, tool, ConstraintKind::Bound)
}

/// [`rules_on`] with Constraint Mutation making `kind`.
pub fn rules_on_as(
    work: &std::path::Path,
    op: Builtin,
    tool: &str,
    kind: ConstraintKind,
) -> Proposal {
    let proposal = rules_try(work, op, Some(tool), kind, Aliases::Allowed).unwrap();
    assert_eq!(proposal.targets, [tool], "{}", proposal.summary);
    proposal
}

/// The rules' `op` on the package or workspace `root`, drawn with seed 1, on `only` (every
/// other tool avoided) or on any tool; its error where nothing fits.
pub fn rules_try(
    root: &std::path::Path,
    op: Builtin,
    only: Option<&str>,
    kind: ConstraintKind,
    aliases: Aliases,
) -> Result<Proposal, mcpevol::mutate::MutateError> {
    let inventory = mcpevol::anchor::anchor(root).unwrap();
    let avoid: Vec<String> = (inventory.tools.iter())
        .map(|t| t.name.clone())
        .filter(|n| only.is_some_and(|only| n != only))
        .collect();
    let ctx = Context {
        root,
        inventory: &inventory,
        seed: 1,
        avoid: &avoid,
        answering: &[],
        multiline: &[],
        json: &[],
        constraint: kind,
        aliases,
    };
    rules::propose(op, &ctx)
}

/// The rules' Flexible Expansion on `tool` of the workspace `work` (every other tool avoided),
/// with `tool` answering on many lines and, where `json`, in JSON: the proposal of the first
/// seed under 80 that claims an effect `wanted` picks.
pub fn expansion_claiming(
    work: &std::path::Path,
    tool: &str,
    json: bool,
    wanted: impl Fn(&Effect) -> bool,
) -> Option<Proposal> {
    expansion_where(work, tool, json, |p| p.effects.iter().any(&wanted))
}

/// [`expansion_claiming`] for the first proposal `wanted` picks.
pub fn expansion_where(
    work: &std::path::Path,
    tool: &str,
    json: bool,
    wanted: impl Fn(&Proposal) -> bool,
) -> Option<Proposal> {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    let avoid: Vec<String> = (inventory.tools.iter())
        .map(|t| t.name.clone())
        .filter(|n| n != tool)
        .collect();
    let listed = [tool.to_string()];
    (1..80)
        .map(|seed| {
            let ctx = Context {
                root: work,
                inventory: &inventory,
                seed,
                avoid: &avoid,
                answering: &listed,
                multiline: &listed,
                json: if json { &listed } else { &[] },
                constraint: ConstraintKind::Bound,
                aliases: Aliases::Allowed,
            };
            // A seed whose draw names no parameter the tool can show at work proposes nothing.
            rules::propose(Builtin::FlexibleExpansion, &ctx).ok()
        })
        .find(|p| p.as_ref().is_some_and(&wanted))
        .flatten()
}

/// The round's committed proposal of `backend` run on `work`, and its check of the claim that
/// `is` picks (asserted present).
pub fn claim_checked(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    proposal: Proposal,
    is: impl Fn(&Effect) -> bool,
) -> (RoundRecord, mcpevol::validate::TestResult) {
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (_, reason, round) = one_round(rt, work, &backend);
    let round = round.expect(&reason);
    let check = round
        .tests
        .iter()
        .find(|t| matches!(&t.check, mcpevol::validate::Check::Claim { effect } if is(effect)))
        .expect("the claim checked")
        .clone();
    (round, check)
}

/// The rules' Tool Addition on `tool` of the workspace `work` (every other tool avoided, `tool`
/// answering), for the first seed whose proposal claims an effect that `is` picks.
pub fn addition_claiming(
    work: &std::path::Path,
    tool: &str,
    aliases: Aliases,
    is: impl Fn(&Effect) -> bool,
) -> Proposal {
    first_addition(work, tool, aliases, &[], is)
}

/// The rules' Tool Addition on `tool` of the workspace `work`, told that its answer had
/// several lines of text, for the first seed that writes a search form.
pub fn search_addition(work: &std::path::Path, tool: &str) -> Proposal {
    let is_search = |e: &Effect| matches!(e, Effect::Search { .. });
    first_addition(work, tool, Aliases::Refused, &[tool.into()], is_search)
}

fn first_addition(
    work: &std::path::Path,
    tool: &str,
    aliases: Aliases,
    multiline: &[String],
    is: impl Fn(&Effect) -> bool,
) -> Proposal {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    let avoid: Vec<String> = (inventory.tools.iter())
        .map(|t| t.name.clone())
        .filter(|n| n != tool)
        .collect();
    (1..60)
        .map(|seed| {
            let ctx = Context {
                root: work,
                inventory: &inventory,
                seed,
                avoid: &avoid,
                answering: &[tool.into()],
                multiline,
                json: &[],
                constraint: ConstraintKind::Bound,
                aliases,
            };
            rules::propose(mcpevol::operators::Builtin::ToolAddition, &ctx).unwrap()
        })
        .find(|p| p.effects.iter().any(&is))
        .expect("some seed adds the new tool asked for")
}

/// `proposal` as a snapshot shows it: its summary, claims and hunks.
pub fn rendered(proposal: &Proposal) -> String {
    let mut out = format!("## {}\n", proposal.summary);
    for effect in &proposal.effects {
        out.push_str(&format!(
            "claims: {}\n",
            serde_json::to_string(effect).unwrap()
        ));
    }
    for h in &proposal.hunks {
        out.push_str(&format!("--- {}\n", h.file));
        (h.search.lines()).for_each(|l| out.push_str(&format!("-{l}\n")));
        (h.replace.lines()).for_each(|l| out.push_str(&format!("+{l}\n")));
    }
    out
}
