//! Releases with the rules (`--shape release`): a release is drawn from the target mix
//! (`release::plan`), and its changes are drafted in turn, each applied to the work tree before
//! the next is drawn, so that two changes on one tool (a description and a parameter) see each
//! other's edits. The tree is put back before the changes go to the attempt loop, which applies
//! them all and judges them together. When the release is rejected, the change the rejection
//! names (its tool or operator; the last drafted when it names none) is dropped, its rejection
//! in the record rewritten to say so, and the rest is tried again: one failing change does not
//! fail the release.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use super::clock::Step;
use super::drafting::{
    self, Drafting, FEWEST_PLANNABLE, Slot, drop_stranded, keeps_tool, name_key,
};
use super::proposer::{Ask, GiveUp, Proposed, Proposer, Provenance};
use super::{AttemptError, Blame, EvolveError};
use crate::mutate::{Aliases, Context, Proposal, Rng, rules};
use crate::release::plan::{self, Class, Recipe};
use crate::release::{Label, Mix, ReleaseRecord};
use crate::version_record::{Author, Rejection};
use crate::workspace::VersionTag;
use mcpevol_core::operators::{self, OperatorId};

/// Recipes tried for one tool of a release before the release goes without it: all of them.
/// A cap of 3 left most releases empty on servers where one operator alone fits: the recipes
/// behind on the mix are drawn first, and the one that fits was seldom among the first three.
const RECIPES_PER_TOOL: usize = plan::RECIPES.len();

/// Changes drafted in place of dropped ones, per version: each costs an attempt of the
/// [`super::MAX_ATTEMPTS`], and a release that spent them all would not commit at all.
const SUBSTITUTES: usize = 2;

/// Proposes releases; the same seed gives the same releases.
pub struct ReleaseProposer {
    mix: Arc<Mix>,
    /// The changes of the release still in it, in the order they were drafted, and what each
    /// was drafted for.
    changes: Vec<Proposal>,
    slots: Vec<Slot>,
    /// The drafting of the release being tried, kept for the changes drafted in place of
    /// dropped ones: what it touched, its draws and its events.
    drafting: Option<Drafting>,
    /// Why the last set was rejected, until the next proposal acts on it.
    rejection: Option<Blame>,
    /// Releases drafted this round: each draws its own seed.
    drafted: u32,
    /// Changes given from outside instead of drafted (tests, scripts): offered once.
    given: Option<Vec<Proposal>>,
    /// Made from given changes: nothing is drafted when they are all dropped.
    outside: bool,
    record: Option<ReleaseRecord>,
    /// The operators of the changes dropped from the version being made, once per drop: one
    /// dropped twice is not drafted again for that version. (On antv-chart every replacement's
    /// new name is listed but never routed: ten attempts went to replacing ten tools.)
    dropped: (Option<VersionTag>, Vec<OperatorId>),
}

impl ReleaseProposer {
    /// Whether changes of operator `id` were dropped `times` times from the version being made.
    fn dropped(&self, ask: &Ask<'_>, id: &str, times: usize) -> bool {
        self.dropped.0 == Some(ask.version)
            && self.dropped.1.iter().filter(|o| o.as_str() == id).count() >= times
    }

    /// Releases drawn by the rules for `mix`.
    pub fn new(mix: Arc<Mix>) -> ReleaseProposer {
        ReleaseProposer {
            mix,
            changes: Vec::new(),
            slots: Vec::new(),
            drafting: None,
            rejection: None,
            drafted: 0,
            given: None,
            outside: false,
            record: None,
            dropped: (None, Vec::new()),
        }
    }

    /// One release of changes made elsewhere, judged and thinned exactly like a drawn one.
    pub fn given(mix: Arc<Mix>, changes: Vec<Proposal>) -> ReleaseProposer {
        ReleaseProposer {
            given: Some(changes),
            outside: true,
            ..ReleaseProposer::new(mix)
        }
    }

    /// The changes of the release still in it.
    pub(super) fn changes(&self) -> &[Proposal] {
        &self.changes
    }

    fn record(&self, planned: &[Class], drafted: usize) -> ReleaseRecord {
        ReleaseRecord {
            mix: self.mix.source.clone(),
            target: self
                .mix
                .patterns
                .iter()
                .map(|(l, s)| (l.to_string(), *s))
                .collect(),
            planned_tools: planned.len(),
            planned_composite: planned.iter().filter(|c| **c == Class::Composite).count(),
            drafted,
        }
    }
}

#[async_trait(?Send)]
impl Proposer for ReleaseProposer {
    fn author(&self) -> Author {
        if self.outside {
            Author::Given
        } else {
            Author::Rules
        }
    }

    async fn propose(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError> {
        if let Some(blame) = self.rejection.take()
            && !self.changes.is_empty()
        {
            let k = blame.pick(&self.changes);
            let dropped = self.changes.remove(k);
            let mut gone = vec![self.slots.remove(k)];
            if self.dropped.0 != Some(ask.version) {
                self.dropped = (Some(ask.version), Vec::new());
            }
            self.dropped.1.push(dropped.operator.clone());
            gone.extend(drop_stranded(
                ask,
                &mut self.changes,
                &mut self.slots,
                rejected,
            ));
            let instead = self.substitute(ask, &gone)?;
            if let Some(last) = rejected.last_mut() {
                last.operator = Some(dropped.operator.clone());
                last.targets = dropped.targets.clone();
                last.hunks = dropped.hunks.clone();
                last.reason = format!("dropped from the release: {}", last.reason);
                if let Some(instead) = instead {
                    last.reason
                        .push_str(&format!("; drafted in its place: {instead}"));
                }
            }
            if !self.changes.is_empty() {
                return Ok(Proposed::Changes(self.changes.clone()));
            }
        }
        if let Some(given) = self.given.take() {
            self.record = Some(self.record(&[], given.len()));
            self.slots = vec![
                Slot {
                    class: Class::Single,
                    counted: Vec::new()
                };
                given.len()
            ];
            self.changes = given;
            return Ok(Proposed::Changes(self.changes.clone()));
        }
        if self.outside {
            return Ok(Proposed::GiveUp(GiveUp::quietly()));
        }
        self.drafted += 1;
        let (planned, at) = self.draft(ask).await?;
        let changes = at.changes.clone();
        self.slots = at.slots.clone();
        self.drafting = Some(at);
        if changes.is_empty() {
            return Ok(Proposed::GiveUp(GiveUp::because(format!(
                "no change of the release could be drafted on {} (tried {} tools)",
                ask.root.display(),
                planned.len()
            ))));
        }
        self.record = Some(self.record(&planned, changes.len()));
        self.changes = changes;
        Ok(Proposed::Changes(self.changes.clone()))
    }

    fn rejected(&mut self, error: &AttemptError) {
        self.rejection = Some(error.blame());
    }

    fn provenance(&mut self) -> Provenance {
        Provenance {
            release: self.record.take(),
            ..Provenance::default()
        }
    }
}

impl ReleaseProposer {
    /// A change drafted in place of the dropped ones (`gone`, whose events are taken back; the
    /// first one's class is tried first), on a tool the release has not touched, over the
    /// changes still in it; its summary, or None where none fits, the version has had
    /// [`SUBSTITUTES`] already, or the attempts left could not drop every change but one and
    /// still try that one. Without it, each dropped change left its tool
    /// out: on all of servers-npm 186 changes were dropped, and 28 releases that touched one
    /// or two tools would have touched three.
    fn substitute(&mut self, ask: &Ask<'_>, gone: &[Slot]) -> Result<Option<String>, EvolveError> {
        let drops = self.dropped.1.len();
        let worst = drops + self.changes.len() + 1;
        if self.outside || drops > SUBSTITUTES || worst > ask.max_attempts as usize {
            return Ok(None);
        }
        let Some(mut at) = self.drafting.take() else {
            return Ok(None);
        };
        for l in gone.iter().flat_map(|s| &s.counted) {
            at.tally.take(*l);
        }
        let class = gone.first().map_or(Class::Single, |s| s.class);
        let head = ask.ws.head()?;
        let hunks: Vec<crate::hunks::Hunk> =
            self.changes.iter().flat_map(|p| p.hunks.clone()).collect();
        let before = self.changes.len();
        at.changes = self.changes.clone();
        at.slots = self.slots.clone();
        at.tally.ahead = 0;
        at.substituting = true;
        // The dropped change's class first, then the others.
        let others = [Class::Tool, Class::Single, Class::Composite];
        let mut order = std::iter::once(class).chain(others.into_iter().filter(|c| *c != class));
        let filled = match crate::hunks::apply(ask.root, &hunks) {
            Ok(_) => order.try_fold(false, |made, c| match made {
                true => Ok(true),
                false => self.fill(ask, c, &mut at),
            }),
            Err(_) => Ok(false),
        };
        ask.ws.restore(&head)?;
        filled?;
        // What `fill` made, if anything, follows the changes it was given.
        let new = at.changes.split_off(before);
        let slots = at.slots.split_off(before);
        at.substituting = false;
        self.drafting = Some(at);
        if new.is_empty() {
            return Ok(None);
        }
        let summary = (new.iter())
            .map(|p| p.summary.clone())
            .collect::<Vec<_>>()
            .join("; ");
        self.slots.extend(slots);
        self.changes.extend(new);
        Ok(Some(summary))
    }

    /// The generator of this try's draws. The server's own name goes into it: with the seed
    /// alone, every server evolved with one seed got releases of the same sizes (seed 11 made
    /// three of five releases of each of 8 servers one-tool ones).
    fn rng(&self, ask: &Ask<'_>) -> Rng {
        Rng::new(Rng::for_attempt(
            ask.seed ^ 0x0052_454c_4541_5345 ^ name_key(&ask.previous.server),
            ask.version.number(),
            self.drafted + ask.try_number * ask.max_attempts,
        ))
    }

    /// The classes of the release's tools, drawn for the run so far, added, removed and
    /// replaced tools first: a tool added after another tool's new description is a P18 pair,
    /// which few releases allow, so drafted last they were mostly refused (P2 came out at half
    /// its target).
    fn classes(
        &self,
        ask: &Ask<'_>,
        tally: &plan::Tally,
        rng: &mut Rng,
    ) -> Result<Vec<Class>, EvolveError> {
        let inventory = drafting::inventory(ask)?;
        let served = inventory.tools.len();
        let chances = (
            plan::tool_chance(&self.mix, tally, plan::NewTools::of(&inventory.tools)),
            plan::composite_chance(&self.mix, tally),
        );
        let extra = plan::extra_tools(tally);
        let most = served.max(FEWEST_PLANNABLE);
        let mut classes = plan::draw_classes(&self.mix, rng, most, chances, extra, &tally.sizes);
        classes.sort_by_key(|c| *c != Class::Tool);
        Ok(classes)
    }

    /// A release drawn and drafted on the work tree, which is back at HEAD afterwards: the
    /// classes planned and the changes that could be drafted, in order. A planned tool that no
    /// recipe of its class fits is made up for by one of another class, once the planned ones
    /// are drafted: left empty, 8 servers over 3 seeds touched a median of 2 tools per release
    /// where 3 were drawn (a release that may not make P18 takes no description beside an
    /// addition, and a small server's tools fit few recipes).
    async fn draft(&self, ask: &Ask<'_>) -> Result<(Vec<Class>, Drafting), EvolveError> {
        let head = ask.ws.head()?;
        let mut rng = self.rng(ask);
        let records = drafting::earlier_records(ask)?;
        let mut tally = drafting::realised_so_far(&records);
        let classes = self.classes(ask, &tally, &mut rng)?;
        tally.ahead = classes.len().saturating_sub(1);
        // A tool added beside another's new description is P18 (Tool Integration makes both by
        // itself): only in a release drawn to allow it.
        let pairs = plan::may_pair(&self.mix, &tally, &mut rng, classes.len());
        let mut at = Drafting {
            tally,
            rng,
            pairs,
            touched: Vec::new(),
            copied: Vec::new(),
            changes: Vec::new(),
            slots: Vec::new(),
            substituting: false,
            adds: false,
            describes: false,
            unseen: drafting::unseen_operators(&records),
            last: false,
        };
        // Classes that fitted no tool: not drawn again for a tool planned in another's place.
        let mut unfit: Vec<Class> = Vec::new();
        let mut owed = 0usize;
        let mut slots = classes.clone();
        let mut i = 0;
        while let Some(&class) = slots.get(i) {
            i += 1;
            let standing_in = i > classes.len();
            if standing_in && (owed == 0 || unfit.contains(&class)) {
                continue;
            }
            at.tally.ahead = classes.len().saturating_sub(i).max(owed.saturating_sub(1));
            if self.fill(ask, class, &mut at)? {
                owed -= usize::from(standing_in);
            } else {
                owed += usize::from(!standing_in);
                if !unfit.contains(&class) {
                    unfit.push(class);
                }
            }
            if i == classes.len() {
                let others: Vec<Class> = [Class::Tool, Class::Single, Class::Composite]
                    .into_iter()
                    .filter(|c| !unfit.contains(c))
                    .collect();
                slots.extend(others.repeat(owed));
            }
        }
        if at.changes.is_empty() {
            at.last = true;
            self.fill(ask, Class::Tool, &mut at)?;
        }
        ask.ws.restore(&head)?;
        Ok((classes, at))
    }

    /// One tool of `class` drafted into the release: recipes drawn for the run so far until
    /// one makes a change; false when none of them fits a tool not touched yet.
    fn fill(&self, ask: &Ask<'_>, class: Class, at: &mut Drafting) -> Result<bool, EvolveError> {
        let mut skip: Vec<Recipe> = Vec::new();
        let (pairs, adds, describes) = (at.pairs, at.adds, at.describes);
        // An operator dropped twice is not drafted again for the version; in place of a dropped
        // change, none that was dropped at all (on a server whose name guard refuses every
        // copy, a copy drafted in a dropped copy's place is dropped in turn).
        let times = if at.substituting { 1 } else { 2 };
        let unseen = at.unseen.clone();
        let allowed = |r: &Recipe| {
            (pairs || !((adds || r.adds()) && (describes || r.describes())))
                && !(r.operators.iter())
                    .any(|o| self.dropped(ask, o, times) || unseen.iter().any(|u| u == o))
        };
        while skip.len() < RECIPES_PER_TOOL {
            let need = at.need();
            let chosen = plan::choose(
                &self.mix,
                class,
                &at.tally,
                &mut at.rng,
                &skip,
                &allowed,
                need,
            );
            let Some(recipe) = chosen else {
                return Ok(false);
            };
            let made = self.draft_recipe(ask, &recipe, at)?;
            if made.is_empty() {
                skip.push(recipe);
                continue;
            }
            // An operator that makes one of several patterns counts toward the first; a pair
            // whose second operator did not fit counts what its first makes alone (counted as
            // the pair, O5 alone passed for P12).
            let aims: &[Label] = if made.len() < recipe.operators.len() {
                plan::alone(recipe.operators[0])
            } else if recipe.operators.len() == 1 {
                &recipe.aims[..1]
            } else {
                recipe.aims
            };
            let mut counted: Vec<Label> = aims.iter().chain(recipe.also).copied().collect();
            let paired = at.adds && at.describes;
            at.adds |= recipe.adds();
            at.describes |= recipe.describes();
            if at.adds && at.describes && !paired {
                counted.push(Label::p(18));
            }
            for l in &counted {
                at.tally.add(*l);
            }
            // The recipe's events go with its first change: dropped, it takes them back.
            at.slots.extend((0..made.len()).map(|i| Slot {
                class,
                counted: if i == 0 { counted.clone() } else { Vec::new() },
            }));
            at.changes.extend(made);
            return Ok(true);
        }
        Ok(false)
    }

    /// The recipe's operators drafted in turn on one tool not yet touched, each applied to the
    /// work tree; empty when its first operator fits none. The first operator is kept off tools
    /// the second does not fit (as the tree is now); a second operator that does not fit the
    /// first one's tool after its edits leaves the first change alone.
    fn draft_recipe(
        &self,
        ask: &Ask<'_>,
        recipe: &Recipe,
        at: &mut Drafting,
    ) -> Result<Vec<Proposal>, EvolveError> {
        let mut made: Vec<Proposal> = Vec::new();
        let builtin = |id: &str| operators::find(ask.operators, &OperatorId::parse(id))?.builtin();
        let then = recipe.operators.get(1).and_then(|id| builtin(id));
        for id in recipe.operators {
            let Some(builtin) = builtin(id) else {
                break;
            };
            let inventory = drafting::inventory(ask)?;
            let tools = &inventory.tools;
            // Where the release has changed every tool, a copy may take a changed one (it copies
            // the tool as it is now): else a one-tool server's releases touched one tool or two.
            let copies_changed = builtin == operators::Builtin::ToolAddition
                && tools.iter().all(|t| at.touched.contains(&t.name));
            let avoid: Vec<String> = match made.first().and_then(|p| p.targets.first()) {
                Some(tool) => tools
                    .iter()
                    .map(|t| t.name.clone())
                    .filter(|n| n != tool)
                    .collect(),
                None => tools
                    .iter()
                    .filter(|t| {
                        (at.touched.contains(&t.name) && !copies_changed)
                            || (!keeps_tool(builtin) && at.copied.contains(&t.name))
                            || then.is_some_and(|b| rules::applies(b, t, tools).is_err())
                    })
                    .map(|t| t.name.clone())
                    .collect(),
            };
            let ctx = Context {
                root: ask.root,
                inventory: &inventory,
                seed: at.rng.next_u64(),
                avoid: &avoid,
                answering: ask.answering,
                multiline: ask.multiline,
                json: ask.json,
                constraint: recipe.constraint(),
                aliases: Aliases::Refused,
            };
            let started = Instant::now();
            let drafted = rules::propose(builtin, &ctx);
            ask.clock.add(Step::Mutate, started);
            let Ok(proposal) = drafted else { break };
            if proposal.targets.iter().any(|t| avoid.contains(t)) {
                break;
            }
            if crate::hunks::apply(ask.root, &proposal.hunks).is_err() {
                break;
            }
            // A tool copied is not changed: it stays free for a change of its own, but not for
            // a second copy in the same release.
            match builtin {
                operators::Builtin::ToolAddition => at.copied.extend(proposal.targets.clone()),
                _ => at.touched.extend(proposal.targets.iter().cloned()),
            }
            at.touched.extend(proposal.added.iter().cloned());
            made.push(proposal);
        }
        Ok(made)
    }
}
