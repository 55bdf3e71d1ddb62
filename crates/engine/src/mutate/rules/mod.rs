//! The rules backend: the 11 operators as deterministic source edits on the anchored sites,
//! for every registration style anchoring supports. No network, no model: same seed, same edits.
//!
//! This file holds what the operators share: the checks every operator passes first, the
//! [`Plan`] an operator's check returns, [`propose`] and the [`Draft`] it fills. Each operator
//! (or family of operators) has its own file, where its check finds the sites it needs and
//! returns them in its plan, and its apply writes the edits from that plan alone, so that a
//! check and the edit it allows read side by side. What each operator claims lives in
//! `behaviours.rs`, handler wrapping in `wrap.rs`, routing removal in `unroute.rs`.

mod addition;
mod call_batch;
mod constraint;
mod copies;
mod descriptions;
mod expansion;
mod integration;
mod listed_batch;
mod pruning;
mod python_forms;
mod python_search;
mod refactoring;
mod removal;
mod replacement;
mod search_form;
mod single_form;

use std::path::Path;

use super::dialect::dialect_of;
use super::prose;
use super::retext;
use super::splice::{Edits, indent_at};
use super::{Aliases, ConstraintKind, Context, MutateError, Proposal, Rng};
use mcpevol_core::inventory::{DescriptionSite, ParamSite, Span, Tool};
use mcpevol_core::operators::Builtin::{self, *};
use mcpevol_oracle::validate::Effect;

/// A replacement of a byte range of one file's text.
type ByteCut = ((usize, usize), String);

/// The operators the rules backend implements: every built-in one.
pub const OPERATORS: &[Builtin] = Builtin::ALL;

/// Why `op` cannot change `tool`, or Ok when it can (Constraint Mutation as a round makes it).
pub fn applies(op: Builtin, tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    applies_as(
        op,
        ConstraintKind::DescribedBound,
        Aliases::Allowed,
        tool,
        all,
    )
}

/// As [`applies`], for the kind of constraint change asked for.
pub fn applies_as(
    op: Builtin,
    kind: ConstraintKind,
    aliases: Aliases,
    tool: &Tool,
    all: &[Tool],
) -> Result<(), &'static str> {
    plan(op, kind, aliases, tool, all).map(|_| ())
}

/// Whether a release could add a new tool beside any of `tools` (a form of it, not an alias).
pub fn any_new_tool(tools: &[Tool]) -> bool {
    tools.iter().any(|t| {
        applies_as(
            ToolAddition,
            ConstraintKind::DescribedBound,
            Aliases::Refused,
            t,
            tools,
        )
        .is_ok()
    })
}

/// What an operator's check found on one tool: the sites (and values) its edit is written at.
/// Its apply takes it, so an edit is only ever written where its check looked.
enum Plan<'t> {
    Addition(addition::Addition<'t>),
    Replacement(replacement::Replacement<'t>),
    Removal(removal::Removal<'t>),
    Integration(integration::Integration<'t>),
    Expansion(expansion::Expansion<'t>),
    Constraint(constraint::Constraint<'t>),
    Pruning(pruning::Pruning<'t>),
    Refactoring(refactoring::Refactoring<'t>),
    Description(descriptions::Description<'t>),
}

/// The plan of `op` on `tool`, or why it cannot change it.
fn plan<'t>(
    op: Builtin,
    kind: ConstraintKind,
    aliases: Aliases,
    tool: &'t Tool,
    all: &[Tool],
) -> Result<Plan<'t>, &'static str> {
    shared_checks(op, tool, all)?;
    Ok(match op {
        ToolAddition => Plan::Addition(addition::check(tool, all, aliases)?),
        ToolReplacement => Plan::Replacement(replacement::check(tool, all, aliases)?),
        ToolRemoval => Plan::Removal(removal::check(tool, all)?),
        ToolIntegration => Plan::Integration(integration::check(tool, all, aliases)?),
        FlexibleExpansion => Plan::Expansion(expansion::check(tool)?),
        ConstraintMutation => Plan::Constraint(constraint::check(kind, tool, all)?),
        ParameterPruning => Plan::Pruning(pruning::check(tool)?),
        InterfaceRefactoring => Plan::Refactoring(refactoring::check(kind, tool, all)?),
        ToolDescriptionUpdate | ParameterDescriptionUpdate | JointDescriptionUpdate => {
            Plan::Description(descriptions::check(op, kind, tool, all)?)
        }
    })
}

/// The checks before any operator's own: a change of one tool that would change another too
/// is refused, and so is a change of descriptions or constraints the server does not show.
fn shared_checks(op: Builtin, tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    let s = &tool.sites;
    registered_alone(tool, all)?;
    if matches!(
        op,
        FlexibleExpansion
            | ConstraintMutation
            | ParameterPruning
            | InterfaceRefactoring
            | ParameterDescriptionUpdate
            | JointDescriptionUpdate
    ) && shares_schema(tool, all)
    {
        return Err("its schema object also defines another tool, which would change too");
    }
    if matches!(
        op,
        ConstraintMutation | ParameterDescriptionUpdate | JointDescriptionUpdate
    ) && s.opaque_params
    {
        return Err("the running server does not show its parameters' descriptions or constraints");
    }
    Ok(())
}

/// One registration makes several tools (a helper that registers a function under two
/// names): any edit of one is an edit of the others.
fn registered_alone(tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    let Some(mine) = &tool.sites.registration else {
        return Ok(());
    };
    match all
        .iter()
        .any(|t| t.name != tool.name && t.sites.registration.as_ref() == Some(mine))
    {
        true => Err("its registration also registers another tool, which would change too"),
        false => Ok(()),
    }
}

/// Whether another tool's parameters are read from the same object (a copy made by spreading
/// a definition or instancing a class again).
fn shares_schema(tool: &Tool, all: &[Tool]) -> bool {
    let Some(mine) = &tool.sites.schema else {
        return false;
    };
    let inherits = |t: &Tool| t.sites.extends.is_some() && t.sites.extends == tool.sites.holder;
    // A shape spread into another tool's (`{ ...BaseArgs, body }`) changes with it.
    all.iter().any(|t| {
        t.name != tool.name
            && (inherits(t)
                || t.sites
                    .schema
                    .as_ref()
                    .is_some_and(|s| s.object == mine.object || s.spreads.contains(&mine.object)))
    })
}

/// The tool's description, where it can be rewritten.
fn describable(tool: &Tool) -> Result<&DescriptionSite, &'static str> {
    let site = tool
        .sites
        .description
        .as_ref()
        .ok_or("it has no description written in its definition")?;
    site.editable()?;
    Ok(site)
}

/// Parameters whose edits clients are known to see (the live schema describes them), or all
/// of them when the live schema describes none.
fn preferred(params: &[ParamSite]) -> Vec<&ParamSite> {
    let seen: Vec<&ParamSite> = params.iter().filter(|p| p.live_described).collect();
    if seen.is_empty() {
        params.iter().collect()
    } else {
        seen
    }
}

/// The fitting plans the seed picks among: those on tools that answered (`provable`, unless
/// none), and of those, where some write a batch form, those: a new tool that does something
/// new is preferred to an alias copy (real releases name 4% of their new tools as an old one
/// plus a suffix).
fn preferred_pool(fitting: &[(&Tool, Plan)], provable: Vec<usize>) -> Vec<usize> {
    let pool: Vec<usize> = if provable.is_empty() {
        (0..fitting.len()).collect()
    } else {
        provable
    };
    let capable: Vec<usize> = (pool.iter().copied())
        .filter(|&i| match &fitting[i].1 {
            Plan::Addition(a) => a.writes_new(),
            Plan::Integration(a) => a.writes_new(),
            _ => false,
        })
        .collect();
    if capable.is_empty() { pool } else { capable }
}

/// The plan of `op` on `tool` in the round `ctx` describes: [`plan`], less a new tool that
/// would be a search form where the tool's previous answer had no lines of text to search.
fn plan_in<'t>(op: Builtin, ctx: &Context, tool: &'t Tool) -> Result<Plan<'t>, &'static str> {
    let tools = &ctx.inventory.tools;
    let plan = plan(op, ctx.constraint, ctx.aliases, tool, tools)?;
    let searches_only = match &plan {
        Plan::Addition(a) => a.searches_only(),
        Plan::Integration(i) => i.searches_only(),
        _ => false,
    };
    if searches_only && !search_fits(ctx, tool) {
        return Err(
            "its one new tool would be a search form, and its answer had no lines of text to search",
        );
    }
    if let Plan::Refactoring(r) = &plan
        && r.adds_nothing_showable(tool, cuts_lines(ctx, tool), ctx.json.contains(&tool.name))
    {
        return Err("no parameter it could add would show on its answers");
    }
    Ok(plan)
}

/// Proposes the edits of operator `op` on one tool chosen by the seed among those it applies to.
pub fn propose(op: Builtin, ctx: &Context) -> Result<Proposal, MutateError> {
    let tools = &ctx.inventory.tools;
    let fitting: Vec<(&Tool, Plan)> = tools
        .iter()
        .filter(|t| !ctx.avoid.contains(&t.name))
        .filter_map(|t| Some((t, plan_in(op, ctx, t).ok()?)))
        .collect();
    // A tool that answers offline lets the oracle see the change work; a removal proves
    // itself by the name refused, and takes no answering tool away from later versions.
    let provable: Vec<usize> = (0..fitting.len())
        .filter(|&i| op != ToolRemoval && ctx.answering.contains(&fitting[i].0.name))
        .collect();
    let pool = preferred_pool(&fitting, provable);
    let mut rng = Rng::new(ctx.seed);
    let Some(&chosen) = rng.pick(&pool) else {
        if !ctx.avoid.is_empty() && tools.iter().any(|t| plan_in(op, ctx, t).is_ok()) {
            return Err(MutateError::NotApplicable {
                operator: op.into(),
                why: format!(
                    "every tool it fits failed an earlier attempt this round ({})",
                    ctx.avoid.join(", ")
                ),
            });
        }
        let why = tools
            .first()
            .map_or("the server has no anchored tools".to_string(), |t| {
                let why = plan_in(op, ctx, t).err().unwrap_or("it fits");
                format!("no tool fits; for example `{}`: {why}", t.name)
            });
        return Err(MutateError::NotApplicable {
            operator: op.into(),
            why,
        });
    };
    let (tool, plan) = fitting
        .into_iter()
        .nth(chosen)
        .expect("picked from the pool");
    let mut r = Draft {
        root: ctx.root,
        e: Edits::default(),
        rng,
        added: Vec::new(),
        targets: vec![tool.name.clone()],
        effects: Vec::new(),
        constraint: ctx.constraint,
        cuts_lines: cuts_lines(ctx, tool),
        answers_json: ctx.json.contains(&tool.name),
        search_fits: search_fits(ctx, tool),
    };
    let summary = r.apply(plan, tool, tools)?;
    let Draft {
        e,
        added,
        targets,
        effects,
        ..
    } = r;
    Ok(Proposal {
        operator: op.into(),
        targets,
        added,
        summary,
        hunks: e.into_hunks(),
        effects,
    })
}

/// One proposal being drafted: the edits so far, the seeded choices, and what they add and claim.
struct Draft<'a> {
    root: &'a Path,
    e: Edits,
    rng: Rng,
    added: Vec<String>,
    targets: Vec<String>,
    /// What the edits make the tools do, for the oracle to check.
    effects: Vec<Effect>,
    /// See [`Context::constraint`].
    constraint: ConstraintKind,
    /// Whether a cut by lines could show on the tool's answers (see [`Context::multiline`]).
    cuts_lines: bool,
    /// Whether the tool's answers are JSON objects whose keys a projection could keep (see
    /// [`Context::json`]).
    answers_json: bool,
    /// Whether a search form of the tool could be seen working: its previous answer had
    /// several lines of text, not JSON (see [`search_fits`]).
    search_fits: bool,
}

/// Whether a cut by lines could show on `tool`'s answers: they had several lines, or nothing is
/// known of them.
fn cuts_lines(ctx: &Context, tool: &Tool) -> bool {
    !ctx.answering.contains(&tool.name) || ctx.multiline.contains(&tool.name)
}

/// Whether `tool`'s previous answer had several lines, not JSON: a search form keeps some of
/// its lines, and a line of JSON is no entry of anything.
fn search_fits(ctx: &Context, tool: &Tool) -> bool {
    ctx.multiline.contains(&tool.name) && !ctx.json.contains(&tool.name)
}

impl Draft<'_> {
    /// Writes the edits of `plan` on `tool`; returns the summary a person reads in `git log`.
    fn apply(&mut self, plan: Plan, tool: &Tool, all: &[Tool]) -> Result<String, MutateError> {
        match plan {
            Plan::Addition(p) => self.addition(p, tool, all),
            Plan::Replacement(p) => self.replacement(p, tool, all),
            Plan::Removal(p) => self.removal(p, tool),
            Plan::Integration(p) => self.integration(p, tool, all),
            Plan::Expansion(p) => self.expansion(p, tool, all),
            Plan::Constraint(p) => self.constraint(p, tool, all),
            Plan::Pruning(p) => self.pruning(p, tool),
            Plan::Refactoring(p) => self.refactoring(p, tool, all),
            Plan::Description(p) => self.description(p, tool, all),
        }
    }

    fn writer(&mut self) -> prose::Writer<'_> {
        prose::Writer::new(&mut self.rng)
    }

    /// Adds `sentences` to the tool's description at `site`, in its style, where it is written.
    fn add_sentences(
        &mut self,
        site: &DescriptionSite,
        sentences: &[String],
    ) -> Result<(), MutateError> {
        let old = site.text.as_deref().unwrap_or_default();
        let new = prose::attach::append(old, sentences);
        self.retext(site, &new)
    }

    fn retext(&mut self, site: &DescriptionSite, new: &str) -> Result<(), MutateError> {
        for (at, with) in retext::rewrite(&mut self.e, self.root, site, new)? {
            self.e.replace(self.root, &at, with)?;
        }
        Ok(())
    }

    /// Inserts `entry` first in a JSON-schema property object (`{ type: "string" }`).
    fn insert_into_property(
        &mut self,
        site: &ParamSite,
        operator: Builtin,
        entry: &str,
    ) -> Result<(), MutateError> {
        let value = self.e.slice(self.root, &site.value)?;
        if !value.starts_with('{') {
            return Err(MutateError::NotApplicable {
                operator: operator.into(),
                why: format!("`{}` is not an object literal", site.name),
            });
        }
        // `{"type": ...}` written tight gets `{"maximum": 5, "type": ...}`, not `{ "maximum": 5,"type"`.
        let entry = if value[1..].starts_with(char::is_whitespace) {
            entry.to_string()
        } else {
            format!("{} ", entry.trim())
        };
        self.e
            .insert(self.root, &site.value.file, site.value.bytes.0 + 1, entry)
    }

    /// `copy` registered after the registration `reg` (in `text`, its file): as the next
    /// item of a list, or as the next statement.
    fn insert_beside(&mut self, text: &str, reg: &Span, copy: &str) -> Result<(), MutateError> {
        let region = &text[reg.bytes.0..reg.bytes.1];
        let after = text[reg.bytes.1..].trim_start();
        let is_item = !region.trim_end().ends_with(';') && after.starts_with([',', ']', '}', ')']);
        let indent = indent_at(text, reg.bytes.0).to_string();
        let joint = if is_item { "," } else { "" };
        self.e.insert(
            self.root,
            &reg.file,
            reg.bytes.1,
            format!("{joint}\n{indent}{copy}"),
        )
    }

    /// Keeps the guards of wrappers written in earlier rounds in step with a tool's names (in
    /// Python, where a guard names them), so that what they make its parameters do goes on
    /// acting.
    fn python_guards(
        &mut self,
        tool: &Tool,
        names: impl Fn(&[String]) -> Vec<String>,
    ) -> Result<(), MutateError> {
        match tool.handler.as_ref() {
            Some(h) => dialect_of(&h.file).guards_follow(
                &mut self.e,
                self.root,
                &h.file,
                &tool.name,
                &names,
            ),
            None => Ok(()),
        }
    }
}

/// The text of `region` with the given byte ranges (inside it) replaced.
fn cut(text: &str, region: &Span, mut cuts: Vec<ByteCut>) -> String {
    let mut out = text[region.bytes.0..region.bytes.1].to_string();
    cuts.sort_by_key(|c| std::cmp::Reverse(c.0));
    for ((a, b), with) in cuts {
        out.replace_range(a - region.bytes.0..b - region.bytes.0, &with);
    }
    out
}

fn with_bytes(span: &Span, start: usize, end: usize) -> Span {
    Span {
        bytes: (start, end),
        ..span.clone()
    }
}
