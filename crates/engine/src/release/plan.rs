//! A release drawn from the seed: how many tools it touches, which of the changed ones change in
//! more than one way, and for each tool a recipe (one or two operators of the rules on it) that
//! makes the patterns the run is furthest behind on against its target mix.

use std::collections::BTreeMap;

use super::mix::{Label, Mix};
pub use super::tally::Tally;
use crate::mutate::{ConstraintKind, Rng};

/// Where a recipe's change lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A tool added, removed or replaced.
    Tool,
    /// A changed tool, one kind of change.
    Single,
    /// A changed tool, two kinds of change at once.
    Composite,
}

/// Operators of the rules applied in turn to one tool, and the events that makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recipe {
    pub class: Class,
    /// The events it aims at: only those the rules' edits make. (O7 removes optional
    /// parameters, P11, never required ones, P14. Listed as aims, the patterns never made kept
    /// their recipe chosen, and P8 and P11 came out at twice their targets.) O6 makes a bound
    /// (P8), a demotion (P13) or a changed default (`other`), as [`Recipe::constraint`] says.
    pub aims: &'static [Label],
    /// Operator ids; the second, if any, is applied to the first one's tool.
    pub operators: &'static [&'static str],
    /// What Constraint Mutation is to make, where the aims alone do not say (P13: a demotion
    /// or a promotion; P10: a new required parameter), and Interface Refactoring (P6: a new
    /// option, never a pruned one).
    kind: Option<ConstraintKind>,
    /// Events its edits make beside the ones it aims at, counted when it is drafted but never
    /// a reason to choose it: Tool Integration describes the tool it copies (P1). Uncounted,
    /// P1 came out at 22.5% against 16.2% on 8 servers.
    pub also: &'static [Label],
}

const fn p(n: u8) -> Label {
    Label::p(n)
}

const fn r(class: Class, aims: &'static [Label], operators: &'static [&'static str]) -> Recipe {
    Recipe {
        class,
        aims,
        operators,
        kind: None,
        also: &[],
    }
}

/// A recipe whose Constraint Mutation makes `kind`.
const fn rk(
    class: Class,
    aims: &'static [Label],
    operators: &'static [&'static str],
    kind: ConstraintKind,
) -> Recipe {
    Recipe {
        kind: Some(kind),
        ..r(class, aims, operators)
    }
}

/// Every recipe: the operators' own patterns (operators/*.md) and, for the patterns no single
/// operator makes, two operators on one tool (P9 = a constraint and a parameter description,
/// P12, P15; P6 also as a new option and a new tool description on one tool, where O8's
/// refactoring does not fit), or pairs whose atoms no pattern covers alone (a description and a constraint:
/// P1 + P8, as real releases show them).
pub const RECIPES: &[Recipe] = &[
    r(Class::Tool, &[p(2)], &["O1"]),
    r(Class::Tool, &[p(5)], &["O2"]),
    r(Class::Tool, &[p(17)], &["O3"]),
    Recipe {
        also: &[p(1)],
        ..r(Class::Tool, &[p(2), p(18)], &["O4"])
    },
    r(Class::Single, &[p(1)], &["O9"]),
    r(Class::Single, &[p(3)], &["O10"]),
    r(Class::Single, &[p(4)], &["O5"]),
    rk(
        Class::Single,
        &[p(10)],
        &["O6"],
        ConstraintKind::NewRequired,
    ),
    r(Class::Single, &[p(8)], &["O6"]),
    rk(Class::Single, &[p(8)], &["O6"], ConstraintKind::Loosen),
    rk(Class::Single, &[p(8)], &["O6"], ConstraintKind::Capitals),
    rk(Class::Single, &[p(13)], &["O6"], ConstraintKind::Demotion),
    rk(Class::Single, &[p(13)], &["O6"], ConstraintKind::Promotion),
    r(Class::Single, &[p(11)], &["O7"]),
    rk(
        Class::Single,
        &[Label::Other],
        &["O6"],
        ConstraintKind::Redefault,
    ),
    rk(
        Class::Single,
        &[Label::Other],
        &["O9"],
        ConstraintKind::Title,
    ),
    rk(
        Class::Composite,
        &[p(6)],
        &["O8"],
        ConstraintKind::NewOption,
    ),
    r(Class::Composite, &[p(6)], &["O5", "O9"]),
    r(Class::Composite, &[p(7)], &["O11"]),
    r(Class::Composite, &[p(9)], &["O6", "O10"]),
    r(Class::Composite, &[p(12)], &["O5", "O10"]),
    r(Class::Composite, &[p(15)], &["O7", "O10"]),
    r(Class::Composite, &[p(1), p(8)], &["O9", "O6"]),
    r(Class::Composite, &[p(1), p(11)], &["O9", "O7"]),
];

/// The pattern operator `op` makes applied alone, by its recipe of one operator that asks for
/// no kind of constraint (O6's is a bound, P8); none for an operator with no such recipe.
pub fn alone(op: &str) -> &'static [Label] {
    RECIPES
        .iter()
        .find(|r| r.operators == [op] && r.kind.is_none())
        .map_or(&[], |r| &r.aims[..1])
}

/// The chance that a changed tool of the release being drafted is drawn composite: the mix's
/// share, moved by twice as much as the run's changed tools so far fall short of it or pass it
/// (from four changed tools on), within a quarter to 85%. Composite slots are the ones whose
/// recipes fit fewest tools, and a composite loses a part more often in validation (it is then
/// single): drawn at the share alone, ten held-out servers came out at 34% composite against
/// 51%, and moved by the shortfall once, at 39-40%.
pub fn composite_chance(mix: &Mix, tally: &Tally) -> f64 {
    if tally.changed < 4 {
        return mix.composite;
    }
    let realised = tally.composite as f64 / tally.changed as f64;
    (mix.composite + 2.0 * (mix.composite - realised)).clamp(0.25, 0.85)
}

/// Whether a new tool (a batch or single form) fits some tool of the server: where none does,
/// a release adds none, and the tools it adds are left out of what it aims at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewTools {
    Fit,
    NoneFit,
}

impl NewTools {
    pub fn of(tools: &[mcpevol_core::inventory::Tool]) -> NewTools {
        match crate::mutate::rules::any_new_tool(tools) {
            true => NewTools::Fit,
            false => NewTools::NoneFit,
        }
    }
}

/// The chance that a tool of the release being drafted is drawn added, removed or replaced:
/// the mix's share of those patterns among the ones recipes make, moved by twice as much as the
/// run's events so far fall short of it or pass it (from four events on: a run of five
/// releases has a dozen, and from eight on, the second half of a run alone caught up), within
/// a tenth to 60%. Where no new form fits a tool, a slot drawn so is drafted as a changed tool instead,
/// and the run falls behind: at the share alone, the held-out ten made the tool-added pattern
/// 11.1% of their events against 17.5%. Where no new tool fits at all, only removed and
/// replaced tools are aimed at (from 2% up): else they took the additions' share (P5 4.1%).
pub fn tool_chance(mix: &Mix, tally: &Tally, new_tools: NewTools) -> f64 {
    let (patterns, least): (&[u8], f64) = match new_tools {
        NewTools::Fit => (&[2, 5, 17], 0.1),
        NewTools::NoneFit => (&[5, 17], 0.02),
    };
    let target = tool_share(mix, patterns);
    let events: usize = tally.counts.values().sum();
    if events < 4 {
        return target.max(least);
    }
    let tools: f64 = patterns.iter().map(|n| tally.have(p(*n))).sum();
    let realised = tools / events as f64;
    (target + 2.0 * (target - realised)).clamp(least, 0.6)
}

/// The mix's share of added, removed and replaced tools among the patterns recipes make.
fn tool_share(mix: &Mix, patterns: &[u8]) -> f64 {
    let tools: f64 = patterns.iter().map(|n| mix.share(Label::p(*n))).sum();
    let covered: f64 = RECIPES
        .iter()
        .flat_map(|r| r.aims.iter())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|l| mix.share(*l))
        .sum();
    if covered > 0.0 { tools / covered } else { 0.0 }
}

/// Tools to plan beyond the number drawn, for a release drawn to touch more than one: the
/// average shortfall of the run's earlier such releases (each release's tools planned but not
/// touched, so that one touching more than planned does not make up for one touching fewer),
/// rounded up, at most two. Some planned tools fit no recipe the release allows (a release
/// that may not make P18 takes no description beside an addition), and some changes are
/// dropped in validation: without it 8 servers touched a median of 2 tools per release where
/// a median of 3 were drawn. Netted over all releases, rounded to the nearest and added to
/// one-tool releases as well, servers-npm had 201 of 390 releases touching one or two tools
/// (6cebd3e); not netted and kept off one-tool releases but still rounded to the nearest (a
/// run short by less than half a tool a release planned none), 92 of the first 173 (6478740).
pub fn extra_tools(tally: &Tally) -> usize {
    if tally.releases == 0 {
        return 0;
    }
    let short = tally.short as f64 / tally.releases as f64;
    (short.ceil() as usize).min(2)
}

/// The number of tools a release is drawn to touch: by how far the run's earlier releases
/// (`sizes`: how many touched each number of tools; more than the mix names count as its
/// largest) fall short of the mix's weights by the end of this one, where any size does; else
/// by the weights. Drawn by the weights alone, servers-npm's releases touched one or two tools
/// in 55% of releases against the target's 35% (planned tools fall short of their plans; a
/// run of five releases does not even out).
fn draw_size(mix: &Mix, sizes: &BTreeMap<usize, usize>, rng: &mut Rng) -> usize {
    let largest = mix.tools.keys().max().map_or(1, |n| *n as usize);
    let had = |n: usize| -> usize {
        (sizes.iter())
            .filter(|(k, _)| **k == n || (n == largest && **k > largest))
            .map(|(_, c)| c)
            .sum()
    };
    let horizon = (sizes.values().sum::<usize>() + 1) as f64;
    let short: Vec<(usize, f64)> = (mix.tools.iter())
        .map(|(n, w)| (*n as usize, w * horizon - had(*n as usize) as f64))
        .filter(|(_, d)| *d > 0.0)
        .collect();
    let weights: Vec<(usize, f64)> = if sizes.is_empty() || short.is_empty() {
        mix.tools.iter().map(|(n, w)| (*n as usize, *w)).collect()
    } else {
        short
    };
    draw_weighted(rng, weights.into_iter()).unwrap_or(1)
}

/// The classes of a release's tools, drawn from the mix: the number of tools (plus `extra`
/// where more than one is drawn, at most `max_tools`), then for each whether it is
/// added/removed/replaced (with chance `tool_p`), and if it is a changed tool, whether it
/// changes in more than one way (with chance `composite`).
pub fn draw_classes(
    mix: &Mix,
    rng: &mut Rng,
    max_tools: usize,
    (tool_p, composite): (f64, f64),
    extra: usize,
    sizes: &BTreeMap<usize, usize>,
) -> Vec<Class> {
    let drawn = draw_size(mix, sizes, rng);
    // A one-tool release touches its one tool or none: it keeps its share of the shape.
    let extra = if drawn > 1 { extra } else { 0 };
    let n = drawn.saturating_add(extra).clamp(1, max_tools.max(1));
    (0..n)
        .map(|_| {
            if unit(rng) < tool_p {
                Class::Tool
            } else if unit(rng) < composite {
                Class::Composite
            } else {
                Class::Single
            }
        })
        .collect()
}

/// How far behind (in events) a recipe's patterns must be for the deficits to choose: less, and
/// the target's shares do. With any deficit choosing, every rare pattern was "behind" at a
/// run's first slots (P17 wants 0.17 of the 8 events of a first release), so each server
/// made its removal and replacement early, and 20 events a server made one of them 5%: P5 and
/// P17 came out at twice their targets, P2 under.
pub const BEHIND: f64 = 0.5;

/// How often a release allowed to pair an added tool with another tool's new description made
/// such a pair: about a third on 8 servers (it needs an addition and a description both
/// drafted).
const PAIRED: f64 = 1.0 / 3.0;

/// Whether a release of `tools` tools may show P18 (a tool added beside another tool's new
/// description), drawn so that pairs come at the target's rate per event, and never while the
/// run has its share. P18 counts once per release, and these runs' releases are small: allowed
/// wherever the run was behind, nearly every run made one (7.4% against 2.8% on 8 servers and
/// 3 seeds); allowed only half an event behind, hardly any did (0.3%).
pub fn may_pair(mix: &Mix, tally: &Tally, rng: &mut Rng, tools: usize) -> bool {
    let chance = mix.share(p(18)) * tools as f64 / PAIRED;
    deficit(mix, tally, p(18)) > 0.0 && unit(rng) < chance.min(1.0)
}

/// How far the run is behind the target on pattern `p` by the end of the release being
/// drafted, in events; 0 when it is not behind.
pub fn deficit(mix: &Mix, tally: &Tally, l: Label) -> f64 {
    (mix.share(l) * tally.horizon() - tally.have(l)).max(0.0)
}

/// The part of pattern `l`'s target the run still lacks by the end of the release being
/// drafted, from 1 (none made yet) down to a tenth (met or passed), so that a met pattern is
/// still drawn where nothing else fits.
fn room(mix: &Mix, tally: &Tally, l: Label) -> f64 {
    let target = mix.share(l) * tally.horizon();
    if target <= 0.0 {
        return 0.1;
    }
    (1.0 - tally.have(l) / target).clamp(0.1, 1.0)
}

/// Whether the run has pattern `p` at half again its target share or more (`tally` as for
/// [`deficit`]).
fn far_over(mix: &Mix, tally: &Tally, l: Label) -> bool {
    let have = tally.have(l);
    have > 0.0 && have >= 1.5 * mix.share(l) * tally.horizon()
}

impl Recipe {
    /// What its Constraint Mutation makes: the kind the recipe names (P13, `other`); a bound
    /// explained in its parameter's description only for P9. (Explained elsewhere, the description turned a bare
    /// constraint, P8, into P9, and a tool description beside a constraint, P1 + P8, into
    /// P7 + P8: on 8 servers, 23 of 30 of those came out P7 + P8.)
    pub fn constraint(&self) -> ConstraintKind {
        if let Some(kind) = self.kind {
            kind
        } else if self.aims.contains(&p(9)) {
            ConstraintKind::DescribedBound
        } else {
            ConstraintKind::Bound
        }
    }

    /// Whether it adds a tool, which beside another tool's new description makes P18. (A
    /// replacement shows as one, P5, and counted as an addition, it was kept from every
    /// release with a description.)
    pub fn adds(&self) -> bool {
        self.aims.contains(&p(2))
    }

    /// Whether it rewrites the description of a tool that was there before. (The rules' removal
    /// describes nothing, and their replacement describes only the new tool, which shows as P5.
    /// Counted as describing, they kept every later addition out of a release that may not
    /// make P18.)
    pub fn describes(&self) -> bool {
        self.operators
            .iter()
            .any(|o| ["O4", "O8", "O9", "O11"].contains(o))
    }
}

/// How much the release being drafted needs the slot being filled: what decides whether a slot
/// may stay empty rather than take a pattern the run has enough of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The release has a change already: a slot the run is behind on nowhere is left empty
    /// rather than filled by a recipe whose every pattern is half again over its target.
    Spare,
    /// The release has no change yet, and other slots are still to be drafted.
    Wanted,
    /// The release has no change, and every slot it planned is drafted: a tool slot takes a
    /// replacement or removal that fits, whatever the run has of them, rather than none.
    Only,
}

/// A recipe of `class` that `allowed` lets through, by seed, weighted by how far the run is
/// behind the target on the events it aims at (`counts`: events so far, planned ones
/// included); `skip` are recipes that failed for this tool already.
pub fn choose(
    mix: &Mix,
    class: Class,
    tally: &Tally,
    rng: &mut Rng,
    skip: &[Recipe],
    allowed: &dyn Fn(&Recipe) -> bool,
    need: Need,
) -> Option<Recipe> {
    let deficit = |l: Label| deficit(mix, tally, l);
    let open: Vec<&Recipe> = RECIPES
        .iter()
        .filter(|r| r.class == class && !skip.contains(r) && allowed(r))
        .filter(|r| r.aims.iter().any(|l| mix.share(*l) > 0.0))
        .collect();
    // A tool is removed or replaced only with the chance the run still lacks one (certainly
    // from a whole event on). A run's share of them is under one event, and where a server's
    // tools take no copy, one stood in for every addition drawn: P5 came out at 6.2% against
    // 2.6% on servers-npm (11 replacements in 15 releases of one server). A slot left empty
    // goes to a changed tool. (Additions, most of a run's tool events, are drawn as before:
    // held to the same chance, P2 fell to 13.1% against 17.5%.)
    let open: Vec<&Recipe> = match class {
        Class::Tool if need != Need::Only => (open.into_iter())
            .filter(|r| r.adds() || r.aims.iter().any(|l| unit(rng) < deficit(*l)))
            .collect(),
        _ => open,
    };
    // A recipe of two patterns only while the run lacks both: summed, a deficit of P8 chose
    // the description and bound pair (P1 + P8) where P1 was met, and P1 came out at 21% against
    // 16.2% on 8 servers and 3 seeds.
    let behind: Vec<(&Recipe, f64)> = open
        .iter()
        .map(|r| {
            let each: Vec<f64> = r.aims.iter().map(|l| deficit(*l)).collect();
            let all = each.iter().all(|d| *d > 0.0);
            (*r, if all { each.iter().sum::<f64>() } else { 0.0 })
        })
        .collect();
    let weighted: Vec<(&Recipe, f64)> = if behind.iter().any(|(_, w)| *w >= BEHIND) {
        behind
    } else {
        // On target everywhere: follow the target itself, scaled by how much of each pattern's
        // share the run still lacks, and, where the release has a change already, not with a
        // recipe whose every pattern is half again over its target. Such slots were filled by
        // the one recipe that fits nearly every tool (O5, a new parameter), and P4 came out at
        // twice its target; by the target alone, the commonest patterns (P1) kept their lead.
        open.iter()
            .filter(|r| !(need == Need::Spare && r.aims.iter().all(|l| far_over(mix, tally, *l))))
            .map(|r| {
                (
                    *r,
                    r.aims
                        .iter()
                        .map(|l| mix.share(*l) * room(mix, tally, *l))
                        .sum(),
                )
            })
            .collect()
    };
    draw_weighted(rng, weighted.into_iter()).copied()
}

/// A number in [0, 1).
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// One item, with probability proportional to its weight; None when all weigh nothing.
fn draw_weighted<T>(rng: &mut Rng, items: impl Iterator<Item = (T, f64)>) -> Option<T> {
    let items: Vec<(T, f64)> = items.filter(|(_, w)| *w > 0.0).collect();
    let total: f64 = items.iter().map(|(_, w)| w).sum();
    let mut at = unit(rng) * total;
    let last = items.len().checked_sub(1)?;
    for (i, (item, w)) in items.into_iter().enumerate() {
        if at < w || i == last {
            return Some(item);
        }
        at -= w;
    }
    None
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
