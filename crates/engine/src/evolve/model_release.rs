//! Releases planned by a model (`--shape release` with a model, or a replay of one): the size of
//! the release is drawn from the target mix as the rules draw it, the model plans its changes
//! (`operators/_release.md`), then writes each one with its operator's own prompt, on the work
//! tree as the changes before it left it. The changes are then judged and thinned exactly as
//! the rules' are (`ReleaseProposer::given`): one that fails is dropped and the rest tried
//! again. The model states, with its test cases, what each change does (claims), and the oracle
//! holds those claims as it holds the rules' own.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use super::clock::Step;
use super::model::Model;
use super::model_proposer::{
    endpoint_failed, or_none, previous_rounds, tool_list, unusable_choice,
};
use super::proposer::{Ask, GiveUp, Proposed, Proposer, Provenance};
use super::talk::feedback;
use super::{AttemptError, EvolveError, ReleaseProposer};
use crate::llm::{Chat, ChatMessage};
use crate::mutate::reply::{self, GeneratedTest, Selection};
use crate::mutate::{Proposal, Rng, snippets};
use crate::release::plan::{self, Class};
use crate::release::{Label, Mix};
use crate::version_record::{Author, Rejection};
use mcpevol_anchor as anchor;
use mcpevol_core::inventory::Tool;
use mcpevol_core::listed::ListedTool;
use mcpevol_core::operators::Operator;
use mcpevol_core::prompt::{self, Prompts};
use mcpevol_core::schema::SchemaChange;

/// Plans a version may use: a second one when every change of the first was dropped.
const PLANS_PER_VERSION: u32 = 2;
/// Replies the model gets to write one change's edits before it is left out of the release.
const REPLIES_PER_CHANGE: usize = 2;

/// Proposes releases a model plans and writes.
pub struct ModelReleaseProposer {
    model: Model,
    mix: Arc<Mix>,
    /// The release being judged, thinned as the rules' releases are.
    release: Option<ReleaseProposer>,
    /// The classes the last plan was drawn for, and how many changes it made.
    planned: (Vec<Class>, usize),
    plans: u32,
    /// Changes of this version's plans that were left out, in words, for the next plan.
    left_out: Vec<String>,
    /// Rejections of the round already read for `left_out`.
    seen: usize,
}

impl ModelReleaseProposer {
    pub fn new(
        chat: Arc<dyn Chat>,
        model: String,
        author: Author,
        prompts: Prompts,
        mix: Arc<Mix>,
    ) -> Self {
        ModelReleaseProposer {
            model: Model::new(chat, model, author, prompts),
            mix,
            release: None,
            planned: (Vec::new(), 0),
            plans: 0,
            left_out: Vec::new(),
            seen: 0,
        }
    }
}

#[async_trait(?Send)]
impl Proposer for ModelReleaseProposer {
    fn author(&self) -> Author {
        self.model.author.clone()
    }

    async fn propose(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError> {
        loop {
            if let Some(release) = &mut self.release {
                let proposed = release.propose(ask, rejected).await?;
                let dropped = rejected[self.seen.min(rejected.len())..]
                    .iter()
                    .filter(|r| r.reason.starts_with("dropped from the release"));
                self.left_out.extend(dropped.map(|r| {
                    format!(
                        "- {} on {}: {}",
                        r.operator.as_ref().map_or("?", |o| o.as_str()),
                        r.targets.join(", "),
                        r.reason
                    )
                }));
                self.seen = rejected.len();
                if !matches!(proposed, Proposed::GiveUp(_)) {
                    return Ok(proposed);
                }
                self.release = None;
            }
            if self.plans >= PLANS_PER_VERSION {
                return Ok(Proposed::GiveUp(GiveUp::quietly()));
            }
            self.plans += 1;
            match self.plan(ask, rejected).await? {
                Err(give_up) => return Ok(Proposed::GiveUp(give_up)),
                Ok(changes) if changes.is_empty() => continue,
                Ok(changes) => {
                    self.planned.1 = changes.len();
                    self.release = Some(ReleaseProposer::given(self.mix.clone(), changes));
                }
            }
        }
    }

    fn rejected(&mut self, error: &AttemptError) {
        if let Some(release) = &mut self.release {
            release.rejected(error);
        }
    }

    async fn tests(
        &mut self,
        ask: &Ask<'_>,
        changes: &[SchemaChange],
        tools: &[ListedTool],
    ) -> Result<Vec<GeneratedTest>, AttemptError> {
        let mut targets: Vec<String> = Vec::new();
        for p in self.release.iter().flat_map(|r| r.changes()) {
            for t in p.targets.iter().chain(&p.added) {
                if !targets.contains(t) {
                    targets.push(t.clone());
                }
            }
        }
        self.model.tests(ask, &targets, changes, tools).await
    }

    fn claims(&mut self) -> Vec<mcpevol_oracle::validate::Effect> {
        self.model.claims()
    }

    fn provenance(&mut self) -> Provenance {
        let mut record = self.release.as_mut().and_then(|r| r.provenance().release);
        if let Some(record) = &mut record {
            let (classes, drafted) = &self.planned;
            record.planned_tools = classes.len();
            record.planned_composite = classes.iter().filter(|c| **c == Class::Composite).count();
            record.drafted = *drafted;
        }
        self.model.provenance(record)
    }
}

impl ModelReleaseProposer {
    /// A release planned by the model and written change by change on the work tree, which is
    /// back at HEAD afterwards. Empty when no change of the plan could be written.
    async fn plan(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Result<Vec<Proposal>, GiveUp>, EvolveError> {
        let mut rng = Rng::new(Rng::for_attempt(
            ask.seed ^ 0x004d_4f44_454c_5245,
            ask.version.number(),
            self.plans + ask.try_number * ask.max_attempts,
        ));
        let classes = plan::draw_classes(
            &self.mix,
            &mut rng,
            ask.previous.tools.len(),
            (
                plan::tool_chance(&self.mix, &plan::Tally::default(), plan::NewTools::Fit),
                self.mix.composite,
            ),
            0,
            &Default::default(),
        );
        let mut history = or_none(&previous_rounds(ask)?);
        if !self.left_out.is_empty() {
            history.push_str("\n\nLeft out of this release after failing their checks:\n");
            history.push_str(&self.left_out.join("\n"));
        }
        let menu: Vec<&Operator> = ask.operators.iter().collect();
        let listing: Vec<String> = menu.iter().map(|o| o.menu_line()).collect();
        let values = BTreeMap::from([
            (
                "server_name",
                mcpevol_oracle::server::launch::package_name(ask.root),
            ),
            ("tool_list", tool_list(ask.previous, ask.answering)),
            ("previous_rounds", history.clone()),
            ("operators", listing.join("\n")),
            ("release_size", size_words(&classes)),
            ("target_mix", mix_words(&self.mix)),
        ]);
        self.planned = (classes, 0);
        let first = prompt::render(&self.model.prompts.release, &values)?;
        let selections = match self.ask_plan(ask, first, &menu, rejected).await {
            Ok(s) => s,
            Err(give_up) => return Ok(Err(give_up)),
        };
        let head = ask.ws.head()?;
        let mut changes = Vec::new();
        for selection in &selections {
            let operator = menu
                .iter()
                .find(|o| o.id == selection.operator)
                .expect("ask_plan() checked every operator is on the menu");
            match self.write(ask, operator, selection, &history).await {
                Ok(proposal) => changes.push(proposal),
                Err(error @ AttemptError::Endpoint(_)) => {
                    ask.ws.restore(&head)?;
                    return Ok(Err(endpoint_failed(error, rejected)));
                }
                Err(error) => {
                    let mut r = error.rejection(
                        Some(operator.id.clone()),
                        selection.targets.clone(),
                        Vec::new(),
                    );
                    r.reason = format!("left out of the release: {}", r.reason);
                    self.left_out.push(format!(
                        "- {} on {}: {}",
                        operator.id,
                        selection.targets.join(", "),
                        r.reason
                    ));
                    rejected.push(r);
                }
            }
        }
        ask.ws.restore(&head)?;
        Ok(Ok(changes))
    }

    /// The model's plan, asked until every change in it names an operator of the menu and
    /// tools of the server.
    async fn ask_plan(
        &mut self,
        ask: &Ask<'_>,
        first: String,
        menu: &[&Operator],
        rejected: &mut Vec<Rejection>,
    ) -> Result<Vec<Selection>, GiveUp> {
        let mut messages = vec![ChatMessage::user(first)];
        let names = ask.previous.names();
        let mut last = String::new();
        for _ in 0..ask.max_attempts.min(super::MAX_MODEL_ATTEMPTS) {
            let text = match self.model.talk.ask(&messages).await {
                Ok(t) => t,
                Err(e) => return Err(endpoint_failed(e, rejected)),
            };
            let problem = match reply::parse_release_plan(&text) {
                Err(e) => AttemptError::from(e),
                Ok(plan) => match plan.changes.iter().enumerate().find_map(|(i, s)| {
                    unusable_choice(s, menu, &names).map(|p| format!("change {}: {p}", i + 1))
                }) {
                    None => return Ok(plan.changes),
                    Some(problem) => AttemptError::Choice(problem),
                },
            };
            rejected.push(problem.rejection(None, Vec::new(), Vec::new()));
            last = problem.to_string();
            messages.push(ChatMessage::assistant(text));
            messages.push(ChatMessage::user(feedback(&self.model.prompts, &last)));
        }
        Err(GiveUp::because(format!(
            "the model's release plan was still unusable: {last}"
        )))
    }

    /// One change of the plan written by the model with its operator's prompt, and applied to
    /// the work tree (so that the next change sees it).
    async fn write(
        &mut self,
        ask: &Ask<'_>,
        operator: &Operator,
        selection: &Selection,
        history: &str,
    ) -> Result<Proposal, AttemptError> {
        let started = Instant::now();
        let inventory = anchor::anchor_with(ask.root, ask.cache)
            .map_err(|e| AttemptError::Choice(format!("the server no longer anchors: {e}")))?;
        ask.clock.add(Step::Anchor, started);
        let targets: Vec<&Tool> = selection
            .targets
            .iter()
            .filter_map(|t| inventory.tool(t))
            .collect();
        let values: BTreeMap<&str, String> = BTreeMap::from([
            (
                "server_name",
                mcpevol_oracle::server::launch::package_name(ask.root),
            ),
            ("tool_list", tool_list(ask.previous, ask.answering)),
            ("targets", selection.targets.join(", ")),
            ("snippets", snippets::snippets(ask.root, &targets)),
            ("previous_rounds", history.to_string()),
            ("operator_id", operator.id.to_string()),
            ("operator_name", operator.name.clone()),
            ("contract", prompt::contract_words(&operator.contract)),
        ]);
        let first = operator
            .mutation_prompt(&values)
            .map_err(|e| AttemptError::Choice(e.to_string()))?;
        let mut messages = vec![ChatMessage::user(first)];
        let mut problem = None;
        for _ in 0..REPLIES_PER_CHANGE {
            let started = Instant::now();
            let answer = self.model.talk.ask(&messages).await;
            ask.clock.add(Step::Mutate, started);
            let text = answer?;
            let error = match reply::parse_blocks(&text) {
                Err(e) => AttemptError::from(e),
                Ok(hunks) => match crate::hunks::apply(ask.root, &hunks) {
                    Ok(_) => {
                        return Ok(Proposal {
                            operator: operator.id.clone(),
                            targets: selection.targets.clone(),
                            added: added_since(ask, &inventory),
                            summary: format!("{}: {}", operator.name, selection.rationale.trim()),
                            hunks,
                            effects: Vec::new(),
                        });
                    }
                    Err(e) => AttemptError::from(e),
                },
            };
            messages.push(ChatMessage::assistant(text));
            messages.push(ChatMessage::user(feedback(
                &self.model.prompts,
                &error.to_string(),
            )));
            problem = Some(error);
        }
        Err(problem.expect("at least one reply was read"))
    }
}

/// The tools the work tree serves now that `before` did not: what a change just applied added
/// (a model's proposal names only the tools it targets).
fn added_since(ask: &Ask<'_>, before: &mcpevol_core::inventory::Inventory) -> Vec<String> {
    let Ok(now) = anchor::anchor_with(ask.root, ask.cache) else {
        return Vec::new();
    };
    now.tools
        .iter()
        .map(|t| t.name.clone())
        .filter(|n| before.tool(n).is_none())
        .collect()
}

/// How big the release is to be, in words for the model.
fn size_words(classes: &[Class]) -> String {
    let count = |c: Class| classes.iter().filter(|x| **x == c).count();
    let tools = |n: usize| {
        if n == 1 {
            "1 tool".to_string()
        } else {
            format!("{n} tools")
        }
    };
    let mut lines = vec![format!(
        "This release concerns {} in all:",
        tools(classes.len())
    )];
    for (class, what) in [
        (Class::Tool, "added, removed or replaced"),
        (Class::Single, "changed in one way (one change)"),
        (
            Class::Composite,
            "changed in two ways at once (two changes on the same tool, such as a new parameter and the tool's description)",
        ),
    ] {
        if count(class) > 0 {
            lines.push(format!("- {} {what};", tools(count(class))));
        }
    }
    lines.join("\n")
}

/// The target share of each pattern, the most common first, in words for the model.
fn mix_words(mix: &Mix) -> String {
    let mut shares: Vec<(Label, f64)> = mix.patterns.iter().map(|(l, s)| (*l, *s)).collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1));
    shares
        .iter()
        .filter(|(_, s)| *s > 0.0)
        .map(|(l, s)| {
            let meaning = match l {
                Label::Pattern(p) => p.meaning(),
                Label::Other => "another schema change (a changed default, say)",
            };
            format!("- {l}, {meaning}: {:.1}%", s * 100.0)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_size_names_each_class_of_tool_it_plans() {
        let words = size_words(&[Class::Tool, Class::Composite, Class::Composite]);
        assert!(
            words.starts_with("This release concerns 3 tools in all:"),
            "{words}"
        );
        assert!(
            words.contains("- 1 tool added, removed or replaced;"),
            "{words}"
        );
        assert!(
            words.contains("- 2 tools changed in two ways at once"),
            "{words}"
        );
        assert!(!words.contains("in one way"), "{words}");
    }

    #[test]
    fn the_target_mix_is_listed_most_common_first_with_its_meaning() {
        let words = mix_words(&Mix::shipped());
        let first = words.lines().next().unwrap();
        assert!(first.starts_with("- P2, a new tool: "), "{words}");
        assert!(
            words.contains("- P1, a tool's description updated: 16.2%"),
            "{words}"
        );
    }
}
