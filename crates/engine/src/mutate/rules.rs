//! The rules backend: the 11 operators as deterministic source edits on the anchored sites,
//! for every registration style anchoring supports. No network, no model: same seed, same edits.
//!
//! Over 500 lines on purpose: `applies` and `Draft::apply` are the operator table, one arm per
//! operator, and the site surgeries they share follow them, so that a rule reads beside its
//! siblings. What each operator claims lives in `behaviours.rs`, handler wrapping in `wrap.rs`,
//! routing removal in `unroute.rs`.

use std::path::Path;

use super::around;
use super::batch_form;
use super::behaviours::{Bound, LAYOUTS, NEW_PARAMS, NewParam, Takes, around_params_in};
use super::capitals;
use super::prose::{self, Note};
use super::python::{self, is_python};
use super::splice::{
    Edits, append_entry, contains, indent_at, item_range, js_string, statement_range,
};
use super::{
    ConstraintKind, Context, MutateError, Presence, Proposal, Rng, defaults, loosen, retext, title,
    unroute, words, wrap,
};
use mcpevol_core::inventory::{DescriptionForm, DescriptionSite, ParamSite, RouteKind, Span, Tool};
use mcpevol_core::operators::Builtin::{self, *};
use mcpevol_oracle::validate::Effect;

/// A replacement of a byte range of one file's text.
type ByteCut = ((usize, usize), String);

/// Suffixes of a tool added beside an existing one as its alias.
const ALIAS_SUFFIXES: [&str; 3] = ["alias", "v1", "compat"];

/// The operators the rules backend implements: every built-in one.
pub const OPERATORS: &[Builtin] = Builtin::ALL;

/// Why `op` cannot change `tool`, or Ok when it can (Constraint Mutation as a round makes it).
pub fn applies(op: Builtin, tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    applies_as(op, ConstraintKind::DescribedBound, tool, all)
}

/// As [`applies`], for the kind of constraint change asked for.
// Long: one arm per built-in operator, the operator table `Draft::apply` follows.
pub fn applies_as(
    op: Builtin,
    kind: ConstraintKind,
    tool: &Tool,
    all: &[Tool],
) -> Result<(), &'static str> {
    let s = &tool.sites;
    let schema = s.schema.as_ref();
    let can_describe = describable(tool).map(|_| ());
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
    match op {
        ToolAddition | ToolIntegration => {
            copyable(tool)?;
            if made_by_rules(&tool.name) {
                return Err(
                    "its name is one the rules give a copy: a copy of it would be a copy of a copy",
                );
            }
            if free_suffixes(tool, all, "").is_empty() {
                return Err("every name the rules give a copy of it is taken");
            }
            if op == ToolIntegration {
                can_describe?;
            }
            Ok(())
        }
        ToolReplacement => {
            if s.name.is_none() && !python::names_by_registration(tool) {
                return Err("its name is not written in its definition");
            }
            if made_by_rules(&tool.name) {
                return Err(
                    "its name is one the rules give a copy: its replacement would be `x_alias_v2`",
                );
            }
            Ok(())
        }
        ToolRemoval => {
            if s.registration.is_none() {
                return Err("no registration site to remove was found");
            }
            if all.len() < 2 {
                return Err("it is the server's only tool");
            }
            Ok(())
        }
        FlexibleExpansion => {
            if tool.handler.is_none() {
                return Err("its handler was not found, so a new parameter could not act");
            }
            if fresh_params(tool).is_empty() {
                return Err("it already has every parameter the rules can add");
            }
            match schema {
                Some(sc) if sc.json || sc.zod.is_some() || sc.python.is_some() => {
                    wrap::wrappable_here(tool)
                }
                Some(_) => Err("its zod shape has no parameter that shows how the file spells zod"),
                None => Err("its input schema is not written out literally"),
            }
        }
        ConstraintMutation if kind == ConstraintKind::Demotion => {
            defaults::demotable(tool).map(|_| ())
        }
        ConstraintMutation if kind == ConstraintKind::Promotion => {
            defaults::promotable(tool).map(|_| ())
        }
        ConstraintMutation if kind == ConstraintKind::Loosen => {
            loosen::loosenable(tool).map(|_| ())
        }
        ConstraintMutation if kind == ConstraintKind::Capitals => {
            capitals::widenable(tool).map(|_| ())
        }
        ConstraintMutation if kind == ConstraintKind::Redefault => {
            match defaults::json_declarable(tool) {
                Some(_) => Ok(()),
                None => defaults::redefaultable(tool).map(|_| ()),
            }
        }
        // A new required parameter is Flexible Expansion's, into a zod shape only: the one
        // schema form that then refuses calls without it by itself (a JSON schema's `required`
        // list is a promise the handler may not keep, and a Python signature cannot take a
        // parameter without a default after ones with defaults).
        ConstraintMutation if kind == ConstraintKind::NewRequired => {
            applies(FlexibleExpansion, tool, all)?;
            match schema {
                Some(s)
                    if s.zod.is_some()
                        && !s.json
                        && s.python.is_none()
                        && !is_python(&s.object.file) =>
                {
                    Ok(())
                }
                _ => Err(
                    "a required parameter is added only to a zod shape, which refuses calls without it",
                ),
            }
        }
        ConstraintMutation => constrainable(tool).map(|_| ()),
        ParameterPruning => prunable(tool).map(|_| ()),
        InterfaceRefactoring => {
            can_describe?;
            applies(FlexibleExpansion, tool, all).or_else(|_| applies(ParameterPruning, tool, all))
        }
        ToolDescriptionUpdate if kind == ConstraintKind::Title => {
            title::titleable(tool).map(|_| ())
        }
        ToolDescriptionUpdate => {
            can_describe?;
            news(tool, all)
        }
        ParameterDescriptionUpdate => describable_params(tool).map(|_| ()),
        JointDescriptionUpdate => {
            can_describe?;
            news(tool, all)?;
            describable_params(tool).map(|_| ())
        }
    }
}

/// Whether another tool's parameters are read from the same object (a copy made by spreading
/// a definition or instancing a class again).
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

fn shares_schema(tool: &Tool, all: &[Tool]) -> bool {
    let Some(mine) = &tool.sites.schema else {
        return false;
    };
    let inherits = |t: &Tool| t.sites.extends.is_some() && t.sites.extends == tool.sites.holder;
    all.iter().any(|t| {
        t.name != tool.name
            && (inherits(t)
                || t.sites
                    .schema
                    .as_ref()
                    .is_some_and(|s| s.object == mine.object))
    })
}

fn copyable(tool: &Tool) -> Result<(), &'static str> {
    let s = &tool.sites;
    let reg = s
        .registration
        .as_ref()
        .ok_or("no registration site to copy was found")?;
    // A decorated Python function takes a second decorator naming the alias.
    if python::names_by_registration(tool) && reg.file.ends_with(".py") {
        return Ok(());
    }
    let name = s
        .name
        .as_ref()
        .ok_or("its name is not written in its definition")?;
    if !contains(reg, name) && s.holder.is_none() {
        return Err("its name is not written where it is registered");
    }
    // A copy of the registration alone would read the same description: the new tool would
    // say nothing of being an alias, and repeat another tool's words.
    if contains(reg, name)
        && let Some(d) = &s.description
        && !contains(reg, &d.span)
    {
        return Err(
            "its description is not written where it is registered, so a copy would repeat it",
        );
    }
    Ok(())
}

/// The alias suffixes whose name for a copy of `tool` no tool has, and whose variant of its
/// holder (the constant or class a copy is declared as) `text` does not declare. A copy named
/// as a copy made earlier was registered twice: the server kept one, and the version showed no
/// change (or a duplicate declaration that does not load).
fn free_suffixes(tool: &Tool, all: &[Tool], text: &str) -> Vec<&'static str> {
    ALIAS_SUFFIXES
        .into_iter()
        .filter(|s| {
            let name = words::join(&tool.name, s);
            !all.iter().any(|t| t.name == name)
                && tool
                    .sites
                    .holder
                    .as_deref()
                    .is_none_or(|h| find_word(text, &holder_variant(h, s)).is_none())
        })
        .collect()
}

/// Whether `name` ends in a word the rules end a copy's name with (`_alias`, `_v1`,
/// `_compat`, `_batch`): copies of such tools gave `x_v1_v1` and `x_v1_alias_compat`, names no
/// maintainer writes.
fn made_by_rules(name: &str) -> bool {
    let last = words::words(name).pop().unwrap_or_default();
    ALIAS_SUFFIXES
        .iter()
        .chain(&[batch_form::SUFFIX])
        .any(|s| *s == last)
}

/// The name that replaces `name`: its version word raised where it ends in one (`x_v2` becomes
/// `x_v3`), else `name` with `v2`.
fn next_version(name: &str) -> String {
    let last = words::words(name).pop().unwrap_or_default();
    let number = last.strip_prefix('v').and_then(|n| n.parse::<u32>().ok());
    match number {
        Some(n) if name.to_ascii_lowercase().ends_with(&last) => {
            let stem = &name[..name.len() - last.len()];
            let v = if name.ends_with(&last) { "v" } else { "V" };
            format!("{stem}{v}{}", n + 1)
        }
        _ => words::join(name, "v2"),
    }
}

#[cfg(test)]
#[test]
fn a_replacement_raises_a_version_word_and_a_copy_of_a_copy_is_refused() {
    assert_eq!(next_version("query-docs"), "query-docs-v2");
    assert_eq!(next_version("query-docs-v2"), "query-docs-v3");
    assert_eq!(next_version("getDocsV2"), "getDocsV3");
    assert_eq!(next_version("fetch_v9"), "fetch_v10");
    assert!(
        made_by_rules("fetch_v1") && made_by_rules("fetch_alias") && made_by_rules("fetchBatch")
    );
    assert!(!made_by_rules("fetch_v2") && !made_by_rules("fetch"));
}

fn optional_params(tool: &Tool) -> Vec<&ParamSite> {
    let Some(schema) = &tool.sites.schema else {
        return Vec::new();
    };
    schema
        .params
        .iter()
        .filter(|p| tool.params.iter().any(|q| q.name == p.name && !q.required))
        .filter(|p| !is_python(&p.entry.file) || python::prunable(schema))
        .collect()
}

/// The optional parameters that can go: those the tool's description does not name, since a
/// description that names a parameter the tool no longer takes would mislead.
fn prunable(tool: &Tool) -> Result<Vec<&ParamSite>, &'static str> {
    let optional = optional_params(tool);
    if optional.is_empty() {
        return Err("it has no optional parameter to remove");
    }
    let said = tool.description.as_deref().unwrap_or("");
    let free: Vec<&ParamSite> = optional
        .into_iter()
        .filter(|p| !prose::mentions(said, &p.name))
        .collect();
    if free.is_empty() {
        return Err("its description names every optional parameter, and would then be wrong");
    }
    Ok(free)
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

/// Whether the rules know something true to add to the tool's description (from its schema,
/// declared output and related tools; the handler's code is read when proposing).
fn news(tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    let facts = prose::facts::of_tool(tool, all, None);
    let mut rng = Rng::new(0);
    if prose::Writer::new(&mut rng)
        .tool_facts(&facts, 1)
        .is_empty()
    {
        return Err("its description already says everything its schema shows");
    }
    Ok(())
}

/// The parameters whose description can be rewritten (or added) with a fact their schema
/// gives, clients' view first.
fn describable_params(tool: &Tool) -> Result<Vec<&ParamSite>, &'static str> {
    let schema = tool
        .sites
        .schema
        .as_ref()
        .ok_or("its input schema is not written out literally")?;
    if schema.params.is_empty() {
        return Err("it has no parameters");
    }
    let mut rng = Rng::new(0);
    let facts = prose::facts::of_tool(tool, &[], None);
    let found: Vec<&ParamSite> = preferred(&schema.params)
        .into_iter()
        .filter(|site| {
            site.description
                .as_ref()
                .is_none_or(|d| d.editable().is_ok())
        })
        .filter(|site| {
            facts
                .params
                .iter()
                .find(|p| p.name == site.name)
                .is_some_and(|p| !prose::Writer::new(&mut rng).param_facts(p).is_empty())
        })
        .collect();
    if found.is_empty() {
        return Err(
            "no parameter has a fact its description does not state, where it can be edited",
        );
    }
    Ok(found)
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

/// A parameter a bound can be added to, with the bound.
fn constrainable(tool: &Tool) -> Result<(&ParamSite, Bound), &'static str> {
    let schema = tool
        .sites
        .schema
        .as_ref()
        .ok_or("its input schema is not written out literally")?;
    for site in preferred(&schema.params) {
        let ty = tool
            .params
            .iter()
            .find(|p| p.name == site.name)
            .and_then(|p| p.ty.as_deref())
            .unwrap_or("");
        // zod spells integers as numbers; a JSON schema says which.
        let Some(bound) = Bound::for_type(ty).filter(|_| schema.json || ty != "integer") else {
            continue;
        };
        // A parameter with an upper bound of its own keeps it: a second `maxLength` key in the
        // same object, or a second `.max()`, leaves the schema as it was or says two limits.
        let bounded = (tool.params.iter()).any(|p| p.name == site.name && p.shape.max.is_some());
        if bounded {
            continue;
        }
        if schema.json || site.base.is_some() || schema.python.is_some() {
            return Ok((site, bound));
        }
    }
    Err("no string, number or array parameter without an upper bound of its own")
}

/// The parameters with a real effect that the tool does not have yet.
fn fresh_params(tool: &Tool) -> Vec<&'static NewParam> {
    let cuts_already = NEW_PARAMS
        .iter()
        .any(|p| p.cuts() && tool.params.iter().any(|q| q.name == p.name));
    NEW_PARAMS
        .iter()
        .filter(|p| !tool.params.iter().any(|q| q.name == p.name))
        .filter(|p| !(p.skips() && cuts_already))
        .collect()
}

/// The values of a layout parameter, as a JavaScript list's items.
fn layouts() -> String {
    LAYOUTS.map(js_string).join(", ")
}

/// Proposes the edits of operator `op` on one tool chosen by the seed among those it applies to.
pub fn propose(op: Builtin, ctx: &Context) -> Result<Proposal, MutateError> {
    let tools = &ctx.inventory.tools;
    let fitting: Vec<&Tool> = tools
        .iter()
        .filter(|t| !ctx.avoid.contains(&t.name))
        .filter(|t| applies_as(op, ctx.constraint, t, tools).is_ok())
        .collect();
    // A tool that answers offline lets the oracle see the change work; a removal proves
    // itself by the name refused, and takes no answering tool away from later versions.
    let provable: Vec<&Tool> = (fitting.iter().copied())
        .filter(|t| op != ToolRemoval && ctx.answering.contains(&t.name))
        .collect();
    let pool = if provable.is_empty() {
        &fitting
    } else {
        &provable
    };
    let mut rng = Rng::new(ctx.seed);
    let Some(tool) = rng.pick(pool).copied() else {
        if !ctx.avoid.is_empty()
            && tools
                .iter()
                .any(|t| applies_as(op, ctx.constraint, t, tools).is_ok())
        {
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
                format!(
                    "no tool fits; for example `{}`: {}",
                    t.name,
                    applies_as(op, ctx.constraint, t, tools).unwrap_err()
                )
            });
        return Err(MutateError::NotApplicable {
            operator: op.into(),
            why,
        });
    };
    let mut r = Draft {
        root: ctx.root,
        e: Edits::default(),
        rng,
        added: Vec::new(),
        targets: vec![tool.name.clone()],
        effects: Vec::new(),
        constraint: ctx.constraint,
        cuts_lines: !ctx.answering.contains(&tool.name) || ctx.multiline.contains(&tool.name),
        answers_json: ctx.json.contains(&tool.name),
    };
    let summary = r.apply(op, tool, tools)?;
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
}

impl Draft<'_> {
    // Long: one arm per built-in operator, each a few lines that call the helpers below.
    fn apply(&mut self, op: Builtin, tool: &Tool, all: &[Tool]) -> Result<String, MutateError> {
        let name = &tool.name;
        Ok(match op {
            // Where a batch form can be written, half the additions are one: new tools in real
            // releases do something new, and are seldom aliases.
            ToolAddition if batch_form::batchable(tool, all).is_ok() && self.rng.below(2) == 0 => {
                let new = self.add_batch(tool)?;
                format!(
                    "Tool Addition: added `{new}`, which runs `{name}` on each of several argument sets"
                )
            }
            ToolAddition => {
                let new = self.add_copy(tool, all)?;
                format!("Tool Addition: added `{new}`, an alias that behaves as `{name}`")
            }
            ToolReplacement => {
                let new = next_version(name);
                self.rename(tool, &new)?;
                if describable(tool).is_ok() {
                    let note = self.writer().note(&Note::Formerly { old: name });
                    self.add_sentences(tool, &[note])?;
                }
                self.added.push(new.clone());
                format!("Tool Replacement: `{name}` is replaced by `{new}`")
            }
            ToolRemoval => {
                self.remove(tool)?;
                unroute::remove_dispatch(&mut self.e, self.root, tool)?;
                format!("Tool Removal: removed `{name}`, its registration and its routing")
            }
            ToolIntegration => {
                let new = self.add_copy(tool, all)?;
                let note = self.writer().note(&Note::Pointer { to: &new });
                self.add_sentences(tool, &[note])?;
                format!(
                    "Tool Integration: added `{new}` beside `{name}` and pointed one at the other"
                )
            }
            FlexibleExpansion => {
                let count = 1 + self.rng.below(2);
                let added = self.add_params(tool, count, Presence::Optional)?;
                format!("Flexible Expansion: `{name}` takes new optional parameter(s) {added}")
            }
            ConstraintMutation if self.constraint == ConstraintKind::Demotion => {
                let (site, value) = defaults::demotable(tool).expect("applies() checked");
                defaults::demote(&mut self.e, self.root, site, &value)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is optional now, {value} when it is not sent",
                    site.name
                )
            }
            ConstraintMutation if self.constraint == ConstraintKind::Promotion => {
                let site = defaults::promotable(tool).expect("applies() checked");
                defaults::promote(&mut self.e, self.root, site)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is required now",
                    site.name
                )
            }
            ConstraintMutation if self.constraint == ConstraintKind::NewRequired => {
                let added = self.add_params(tool, 1, Presence::Required)?;
                format!(
                    "Constraint Mutation: `{name}` requires a new parameter {added}; calls without it are refused"
                )
            }
            ConstraintMutation if self.constraint == ConstraintKind::Loosen => {
                let (site, l) = loosen::loosenable(tool).expect("applies() checked");
                let json = tool.sites.schema.as_ref().is_some_and(|s| s.json);
                loosen::loosen(&mut self.e, self.root, site, json, l)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` allows up to {} now (was {})",
                    site.name, l.new, l.old
                )
            }
            ConstraintMutation if self.constraint == ConstraintKind::Capitals => {
                let (site, synonyms) = capitals::widenable(tool).expect("applies() checked");
                let json = tool.sites.schema.as_ref().is_some_and(|s| s.json);
                capitals::widen(&mut self.e, self.root, site, json, &synonyms)?;
                let around = capitals::around(&site.name, &synonyms);
                wrap::wrap(&mut self.e, self.root, tool, &around)?;
                (self.effects).extend(capitals::claims(&tool.name, &site.name, &synonyms));
                let values: Vec<String> = synonyms.iter().map(|(v, _)| format!("`{v}`")).collect();
                format!(
                    "Constraint Mutation: `{name}`.`{}` accepts its values in capitals too ({})",
                    site.name,
                    values.join(", ")
                )
            }
            ConstraintMutation if self.constraint == ConstraintKind::Redefault => {
                let (site, value) = match defaults::json_declarable(tool) {
                    Some((site, value)) => {
                        let entry = format!(" default: {value},");
                        self.insert_into_property(site, ConstraintMutation, &entry)?;
                        (site, value)
                    }
                    None => {
                        let found = defaults::redefaultable(tool).expect("applies() checked");
                        defaults::redefault(&mut self.e, self.root, found.0, &found.1)?;
                        found
                    }
                };
                format!(
                    "Constraint Mutation: `{name}`.`{}` defaults to {value} now",
                    site.name
                )
            }
            ConstraintMutation => {
                let (site, bound) = constrainable(tool).expect("applies() checked");
                let enforced = self.constrain(tool, site, bound)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is bounded ({}){}",
                    site.name,
                    bound.words(),
                    if enforced {
                        ", and values beyond it are refused"
                    } else {
                        ""
                    }
                )
            }
            ParameterPruning => {
                let param = self.prune(tool)?;
                format!("Parameter Pruning: removed optional parameter `{param}` from `{name}`")
            }
            InterfaceRefactoring => {
                let adds = applies(FlexibleExpansion, tool, all).is_ok()
                    && !self.showable_params(tool).is_empty();
                if !adds && applies(ParameterPruning, tool, all).is_err() {
                    return Err(MutateError::NothingToShow { tool: name.clone() });
                }
                let (change, note) = if adds {
                    let added = self.add_params(tool, 1, Presence::Optional)?;
                    let param = self
                        .effects
                        .iter()
                        .find_map(|e| e.param())
                        .and_then(|n| NEW_PARAMS.iter().find(|p| p.name == n))
                        .expect("add_params claims what it adds");
                    (
                        format!("added {added}"),
                        self.writer().note(&Note::NewParam(param)),
                    )
                } else {
                    let pruned = self.prune(tool)?;
                    let note = self.writer().note(&Note::RemovedParam(&pruned));
                    (format!("removed `{pruned}`"), note)
                };
                self.add_sentences(tool, &[note])?;
                format!("Interface Refactoring: `{name}` {change}, with its description updated")
            }
            ToolDescriptionUpdate if self.constraint == ConstraintKind::Title => {
                let title = self.title(tool)?;
                format!("Tool Description Update: `{name}` is titled \"{title}\"")
            }
            ToolDescriptionUpdate => {
                self.add_facts(tool, all)?;
                format!("Tool Description Update: rewrote the description of `{name}`")
            }
            ParameterDescriptionUpdate => {
                let param = self.param_describe(tool)?;
                format!(
                    "Parameter Description Update: rewrote the description of `{name}`.`{param}`"
                )
            }
            JointDescriptionUpdate => {
                self.add_facts(tool, all)?;
                let param = self.param_describe(tool)?;
                format!(
                    "Joint Description Update: rewrote the descriptions of `{name}` and `{name}`.`{param}`"
                )
            }
        })
    }

    /// Gives the tool a display title beside its description; returns the title.
    fn title(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let site = title::titleable(tool).expect("applies() checked");
        let title = title::title_for(&tool.name);
        let text = self.e.text(self.root, &site.span.file)?;
        let Some((at, entry)) = title::entry(text, &site.span, &tool.definition, &title) else {
            return Err(MutateError::NotApplicable {
                operator: ToolDescriptionUpdate.into(),
                why: format!(
                    "`{}`'s description is no entry of an object, or it has a title",
                    tool.name
                ),
            });
        };
        self.e.insert(self.root, &site.span.file, at, entry)?;
        Ok(title)
    }

    /// Removes one optional parameter, chosen by the seed; returns its name.
    fn prune(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let free = prunable(tool).expect("applies() checked");
        let site = *self.rng.pick(&free).expect("prunable() is never empty");
        let schema = tool.sites.schema.as_ref().expect("applies() checked");
        if schema.python == Some(mcpevol_core::inventory::PyParams::Signature) {
            python::prune_signature_param(&mut self.e, self.root, site)?;
            return Ok(site.name.clone());
        }
        let (start, end) = item_range(self.e.text(self.root, &site.entry.file)?, &site.entry);
        self.e
            .replace(self.root, &with_bytes(&site.entry, start, end), "")?;
        // A zod shape or a pydantic model drops keys it does not declare before the handler
        // runs; a handler under a plain JSON schema reads its arguments as sent, so a caller
        // that still sends the parameter would still get its effect. The wrapper takes it out.
        if schema.json && wrap::wrappable(self.root, tool).is_ok() {
            let around = around::drop_param(wrap::is_python_handler(tool), &site.name);
            wrap::wrap(&mut self.e, self.root, tool, &around)?;
        }
        Ok(site.name.clone())
    }

    fn writer(&mut self) -> prose::Writer<'_> {
        prose::Writer::new(&mut self.rng)
    }

    /// Adds `sentences` to the tool's description, in its style, where it is written.
    fn add_sentences(&mut self, tool: &Tool, sentences: &[String]) -> Result<(), MutateError> {
        let site = describable(tool).expect("callers check the description site");
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

    /// What is true of the tool, with what its own handler's code shows.
    fn facts(&mut self, tool: &Tool, all: &[Tool]) -> Result<prose::ToolFacts, MutateError> {
        let handler = match &tool.handler {
            Some(h) if !prose::facts::shared_handler(tool, all) => {
                Some(self.e.slice(self.root, h)?)
            }
            _ => None,
        };
        Ok(prose::facts::of_tool(tool, all, handler.as_deref()))
    }

    /// One or two sentences of facts the description does not state yet.
    fn add_facts(&mut self, tool: &Tool, all: &[Tool]) -> Result<(), MutateError> {
        let facts = self.facts(tool, all)?;
        let most = 1 + self.rng.below(2);
        let sentences = self.writer().tool_facts(&facts, most);
        if sentences.is_empty() {
            return Err(MutateError::Description(format!(
                "`{}`: nothing true to add to it",
                tool.name
            )));
        }
        self.add_sentences(tool, &sentences)
    }

    /// Renames a tool where it is defined and wherever calls are routed by its name.
    fn rename(&mut self, tool: &Tool, new: &str) -> Result<(), MutateError> {
        let Some(name) = tool.sites.name.as_ref() else {
            // A Python function registered without `name=`: it is named now.
            let reg = tool.sites.registration.as_ref().expect("applies() checked");
            return python::add_keyword(&mut self.e, self.root, reg, "name", &python::string(new));
        };
        self.e.replace(self.root, name, js_string(new))?;
        for d in &tool.sites.routes {
            if d.label.bytes != name.bytes || d.label.file != name.file {
                self.e.replace(self.root, &d.label, js_string(new))?;
            }
        }
        self.python_guards(tool, |names| {
            names
                .iter()
                .map(|n| {
                    if *n == tool.name {
                        new.to_string()
                    } else {
                        n.clone()
                    }
                })
                .collect()
        })
    }

    /// Registers a copy of `tool` under a new name, routed to the same handler.
    // Long: a copy is registered, routed and described in each registration style in turn; the styles share the names and spans found first.
    fn add_copy(&mut self, tool: &Tool, all: &[Tool]) -> Result<String, MutateError> {
        let s = &tool.sites;
        let reg = s.registration.as_ref().expect("applies() checked");
        let free = free_suffixes(tool, all, self.e.text(self.root, &reg.file)?);
        if free.is_empty() {
            return Err(MutateError::Unregistrable(
                "every name the rules give a copy of it is taken",
            ));
        }
        let suffix = free[self.rng.below(free.len())];
        let new = words::join(&tool.name, suffix);
        let alias = self.writer().note(&Note::Alias {
            of: &tool.name,
            suffix,
        });
        if python::names_by_registration(tool) {
            let full = prose::attach::prepend(tool.description.as_deref().unwrap_or(""), &alias);
            return self.add_python_alias(tool, reg, &new, &full);
        }
        let name = s.name.as_ref().expect("applies() checked");
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let region = &text[reg.bytes.0..reg.bytes.1];
        let copy = if contains(reg, name) {
            let mut cuts = vec![(name.bytes, js_string(&new))];
            if let Some(d) = s.description.as_ref().filter(|d| contains(reg, &d.span)) {
                cuts.extend(self.copied_description(d, &alias)?);
            }
            cut(&text, reg, cuts)
        } else {
            let holder = s.holder.as_deref().expect("applies() checked");
            match s
                .declaration
                .as_ref()
                .filter(|d| d.file == reg.file && contains(d, name))
            {
                // Same file: declare a copy of the constant or class, and register that.
                Some(decl) => {
                    let new_holder = holder_variant(holder, suffix);
                    let mut cuts = vec![(name.bytes, js_string(&new))];
                    if let Some(d) = s.description.as_ref().filter(|d| contains(decl, &d.span)) {
                        cuts.extend(self.copied_description(d, &alias)?);
                    }
                    let mut copy = cut(&text, decl, cuts);
                    if let Some(at) = find_word(&copy, holder) {
                        copy.replace_range(at..at + holder.len(), &new_holder);
                    }
                    let indent = indent_at(&text, decl.bytes.0).to_string();
                    self.e.insert(
                        self.root,
                        &decl.file,
                        decl.bytes.1,
                        format!("\n{indent}{copy}"),
                    )?;
                    match find_word(region, holder) {
                        Some(at) => format!(
                            "{}{new_holder}{}",
                            &region[..at],
                            &region[at + holder.len()..]
                        ),
                        None => new_holder,
                    }
                }
                // Declared in another module: derive the copy inline where it is registered.
                None => {
                    let description_js = match &s.description {
                        Some(d) if d.text.is_some() => {
                            let full =
                                prose::attach::prepend(d.text.as_deref().unwrap_or(""), &alias);
                            let like = match &d.form {
                                DescriptionForm::Constant {
                                    declared_at: Some(decl),
                                    ..
                                } => decl.as_ref(),
                                _ => d,
                            };
                            retext::literal_like(&mut self.e, self.root, like, &full)
                        }
                        _ => js_string(&alias),
                    };
                    let name_js = js_string(&new);
                    if is_python(&reg.file) {
                        let full = prose::attach::prepend(
                            tool.description.as_deref().unwrap_or(""),
                            &alias,
                        );
                        let derived = python::derived_object(holder, &new, &full);
                        match find_word(region, holder) {
                            Some(at) => format!(
                                "{}{derived}{}",
                                &region[..at],
                                &region[at + holder.len()..]
                            ),
                            None => derived,
                        }
                    } else if let Some(constructor) = region
                        .strip_prefix("new ")
                        .and_then(|r| r.split('(').next())
                    {
                        // A subclass keeps the methods and schema; anchoring sees its fields.
                        format!(
                            "new (class extends {constructor} {{ name = {name_js}; description = {description_js}; }})()"
                        )
                    } else {
                        let inline = format!(
                            "{{ ...{holder}, name: {name_js}, description: {description_js} }}"
                        );
                        match find_word(region, holder) {
                            Some(at) => {
                                format!("{}{inline}{}", &region[..at], &region[at + holder.len()..])
                            }
                            None => inline,
                        }
                    }
                }
            }
        };
        self.insert_beside(&text, reg, &copy)?;
        if !contains(reg, name)
            || s.routes
                .iter()
                .any(|d| d.kind != RouteKind::MapEntry || !contains(reg, &d.site))
        {
            self.route(tool, &new)?;
        }
        self.added.push(new.clone());
        self.effects.push(Effect::Variant {
            tool: new.clone(),
            source: tool.name.clone(),
            max_chars: None,
        });
        Ok(new)
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

    /// A batch form of `tool` registered beside it (see [`batch_form`]): its registration copied
    /// with the name, description, shape and handler rewritten.
    fn add_batch(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let s = &tool.sites;
        let (reg, name) = (s.registration.as_ref(), s.name.as_ref());
        let (reg, name) = reg.zip(name).expect("batchable() checked");
        let description = s.description.as_ref().expect("batchable() checked");
        let schema = s.schema.as_ref().expect("batchable() checked");
        let handler = tool.handler.as_ref().expect("batchable() checked");
        let zod = schema.zod.as_deref().expect("batchable() checked");
        let new = words::join(&tool.name, batch_form::SUFFIX);
        let about = self.writer().note(&Note::Batch {
            of: &tool.name,
            items: batch_form::ITEMS,
            most: batch_form::MOST,
        });
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let shape = &text[schema.object.bytes.0..schema.object.bytes.1];
        let code = &text[handler.bytes.0..handler.bytes.1];
        let cuts = vec![
            (name.bytes, js_string(&new)),
            (description.span.bytes, js_string(&about)),
            (
                schema.object.bytes,
                batch_form::shape(zod, shape, &tool.name),
            ),
            (
                handler.bytes,
                batch_form::handler(code, indent_at(&text, handler.bytes.0)),
            ),
        ];
        let copy = cut(&text, reg, cuts);
        self.insert_beside(&text, reg, &copy)?;
        self.added.push(new.clone());
        self.effects.push(Effect::Batch {
            tool: new.clone(),
            source: tool.name.clone(),
            items: batch_form::ITEMS.to_string(),
        });
        Ok(new)
    }

    /// The cuts that give a copy of the description at `site` the alias sentence first: in
    /// the expression's own form where it is written out, as a literal of the whole text where
    /// it names a constant, and the alias sentence alone where its text cannot be read.
    fn copied_description(
        &mut self,
        site: &DescriptionSite,
        alias: &str,
    ) -> Result<Vec<ByteCut>, MutateError> {
        let Some(old) = site.text.as_deref() else {
            return Ok(vec![(site.span.bytes, js_string(alias))]);
        };
        let full = prose::attach::prepend(old, alias);
        match &site.form {
            DescriptionForm::Literal
            | DescriptionForm::Template
            | DescriptionForm::Docstring
            | DescriptionForm::Concat(_) => {
                let cuts = retext::rewrite(&mut self.e, self.root, site, &full)?;
                Ok(cuts
                    .into_iter()
                    .map(|(at, with)| (at.bytes, with))
                    .collect())
            }
            DescriptionForm::Constant { declared_at, .. } => {
                let like = declared_at.as_deref().unwrap_or(site);
                let literal = retext::literal_like(&mut self.e, self.root, like, &full);
                Ok(vec![(site.span.bytes, literal)])
            }
            DescriptionForm::Opaque(_) => Ok(vec![(site.span.bytes, js_string(alias))]),
        }
    }

    /// A decorated or `add_tool`-registered Python function registered a second time under
    /// the alias, with its own description.
    fn add_python_alias(
        &mut self,
        tool: &Tool,
        reg: &Span,
        new: &str,
        description: &str,
    ) -> Result<String, MutateError> {
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let region = &text[reg.bytes.0..reg.bytes.1];
        let copy = python::alias_registration(region, new, description).ok_or_else(|| {
            MutateError::NotApplicable {
                operator: ToolAddition.into(),
                why: "its registration could not be copied".into(),
            }
        })?;
        let indent = indent_at(&text, reg.bytes.0).to_string();
        self.e.insert(
            self.root,
            &reg.file,
            reg.bytes.1,
            format!("\n{indent}{copy}"),
        )?;
        self.added.push(new.to_string());
        self.effects.push(Effect::Variant {
            tool: new.to_string(),
            source: tool.name.clone(),
            max_chars: None,
        });
        Ok(new.to_string())
    }

    /// Keeps the guards of Python wrappers written in earlier rounds in step with a tool's
    /// names, so that what they make its parameters do goes on acting.
    fn python_guards(
        &mut self,
        tool: &Tool,
        names: impl Fn(&[String]) -> Vec<String>,
    ) -> Result<(), MutateError> {
        match tool.handler.as_ref().filter(|h| is_python(&h.file)) {
            Some(h) => {
                python::wrap::guards_follow(&mut self.e, self.root, &h.file, &tool.name, names)
            }
            None => Ok(()),
        }
    }

    /// Routes calls for `new` to the handler of `tool`, beside its own name.
    fn route(&mut self, tool: &Tool, new: &str) -> Result<(), MutateError> {
        self.python_guards(tool, |names| {
            let mut out = names.to_vec();
            out.push(new.to_string());
            out
        })?;
        for d in &tool.sites.routes {
            let text = self.e.text(self.root, &d.site.file)?.to_string();
            match d.kind {
                RouteKind::Case if is_python(&d.site.file) => {
                    // `case X:` also takes the alias: `case X | "new":`.
                    self.e.insert(
                        self.root,
                        &d.label.file,
                        d.label.bytes.1,
                        python::case_alternative(new),
                    )?;
                }
                RouteKind::Case => {
                    let indent = indent_at(&text, d.site.bytes.0).to_string();
                    self.e.insert(
                        self.root,
                        &d.site.file,
                        d.site.bytes.0,
                        format!("case {}:\n{indent}", js_string(new)),
                    )?;
                }
                RouteKind::Compare => {
                    let compare = &text[d.site.bytes.0..d.site.bytes.1];
                    let (a, b) = (
                        d.label.bytes.0 - d.site.bytes.0,
                        d.label.bytes.1 - d.site.bytes.0,
                    );
                    let other = format!("{}{}{}", &compare[..a], js_string(new), &compare[b..]);
                    let either = if is_python(&d.site.file) {
                        python::compare_or(compare, &other)
                    } else {
                        format!("({compare} || {other})")
                    };
                    self.e.replace(self.root, &d.site, either)?;
                }
                RouteKind::MapEntry => {
                    let pair = &text[d.site.bytes.0..d.site.bytes.1];
                    let (a, b) = (
                        d.label.bytes.0 - d.site.bytes.0,
                        d.label.bytes.1 - d.site.bytes.0,
                    );
                    let copy = format!("{}{}{}", &pair[..a], js_string(new), &pair[b..]);
                    let indent = indent_at(&text, d.site.bytes.0).to_string();
                    self.e.insert(
                        self.root,
                        &d.site.file,
                        d.site.bytes.1,
                        format!(",\n{indent}{copy}"),
                    )?;
                }
            }
        }
        Ok(())
    }

    fn remove(&mut self, tool: &Tool) -> Result<(), MutateError> {
        let reg = tool.sites.registration.as_ref().expect("applies() checked");
        let text = self.e.text(self.root, &reg.file)?;
        let region = &text[reg.bytes.0..reg.bytes.1];
        let after = text[reg.bytes.1..].trim_start();
        let (start, end) =
            if !region.trim_end().ends_with(';') && after.starts_with([',', ']', '}', ')']) {
                item_range(text, reg)
            } else {
                statement_range(text, reg)
            };
        self.e.replace(self.root, &with_bytes(reg, start, end), "")
    }

    /// Adds up to `count` optional parameters with a real effect: declared in the schema and
    /// acted on by code wrapped around the handler. Returns them, as the summary names them.
    fn add_params(
        &mut self,
        tool: &Tool,
        count: usize,
        presence: Presence,
    ) -> Result<String, MutateError> {
        let chosen = self.new_params(tool, count, presence);
        if chosen.is_empty() {
            return Err(MutateError::NothingToShow {
                tool: tool.name.clone(),
            });
        }
        let schema = tool.sites.schema.as_ref().expect("applies() checked");
        let python_schema = is_python(&schema.object.file);
        let mut entries = Vec::new();
        for p in &chosen {
            let words = self.writer().new_param_description(p, presence);
            let description = js_string(&words);
            // `applies_as` lets a required parameter into a zod shape only, which refuses
            // calls without it before the handler runs.
            let optional = match presence {
                Presence::Optional => ".optional()",
                Presence::Required => "",
            };
            entries.push(match (&schema.zod, p.takes) {
                _ if python_schema => python::new_param(schema, p, &words),
                (Some(z), Takes::Count) if !schema.json => format!(
                    "{}: {z}.number().int().min(1){optional}.describe({description})",
                    p.name,
                ),
                (Some(z), Takes::Keys) if !schema.json => format!(
                    "{}: {z}.array({z}.string()).min(1){optional}.describe({description})",
                    p.name,
                ),
                (_, Takes::Count) => format!(
                    "{}: {{ type: {}, minimum: 1, description: {description} }}",
                    p.name,
                    js_string(p.ty),
                ),
                (_, Takes::Keys) => format!(
                    "{}: {{ type: \"array\", items: {{ type: \"string\" }}, minItems: 1, description: {description} }}",
                    p.name,
                ),
                (Some(z), Takes::Layout) if !schema.json => format!(
                    "{}: {z}.enum([{}]){optional}.describe({description})",
                    p.name,
                    layouts(),
                ),
                (_, Takes::Layout) => format!(
                    "{}: {{ type: \"string\", enum: [{}], description: {description} }}",
                    p.name,
                    layouts(),
                ),
            });
        }
        let around = around_params_in(wrap::is_python_handler(tool), &chosen);
        wrap::wrap(&mut self.e, self.root, tool, &around)?;
        if python_schema {
            python::add_params(&mut self.e, self.root, schema, &entries)?;
        } else {
            let text = self.e.text(self.root, &schema.object.file)?.to_string();
            let last = schema.params.last().map(|p| &p.entry);
            let (at, new) = append_entry(&text, &schema.object, last, &entries.join(", "));
            self.e.insert(self.root, &schema.object.file, at, new)?;
        }
        self.effects
            .extend(chosen.iter().map(|p| (p.effect)(&tool.name, p.name)));
        Ok(chosen
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect::<Vec<_>>()
            .join(", "))
    }

    /// Up to `count` of the parameters the tool lacks, starting at one the seed picks.
    fn new_params(
        &mut self,
        tool: &Tool,
        count: usize,
        presence: Presence,
    ) -> Vec<&'static NewParam> {
        // A required `offset` would skip lines of every call: no call could get the whole
        // answer, and the reference calls the oracle makes with it at its maximum would be empty.
        // A required `fields` would have no value that keeps every key.
        let fresh: Vec<&'static NewParam> = (self.showable_params(tool).into_iter())
            .filter(|p| presence == Presence::Optional || (!p.skips() && p.takes == Takes::Count))
            .collect();
        let start = self.rng.below(fresh.len().max(1));
        fresh
            .iter()
            .cycle()
            .skip(start)
            .take(count.min(fresh.len()))
            .copied()
            .collect()
    }

    /// The parameters the tool lacks, but for a cut by lines where its previous answers were
    /// one line each: that cut could not be seen at work.
    fn showable_params(&self, tool: &Tool) -> Vec<&'static NewParam> {
        let python = wrap::is_python_handler(tool)
            || tool
                .sites
                .schema
                .as_ref()
                .is_some_and(|s| is_python(&s.object.file));
        fresh_params(tool)
            .into_iter()
            .filter(|p| self.cuts_lines || !p.by_lines())
            // A projection reworks text parts: a structured result would keep every key.
            .filter(|p| {
                !p.takes.on_json()
                    || (self.answers_json && !python && tool.sites.output_keys.is_empty())
            })
            .collect()
    }

    /// Declares the bound in the schema and, where the handler can be wrapped, refuses values
    /// beyond it before the handler runs. Returns whether it is enforced (and so claimed).
    fn constrain(
        &mut self,
        tool: &Tool,
        site: &ParamSite,
        bound: Bound,
    ) -> Result<bool, MutateError> {
        let json = tool.sites.schema.as_ref().is_some_and(|s| s.json);
        let enforced = wrap::wrappable(self.root, tool).is_ok();
        // The parameter's description says what the bound means, where it can be edited, no
        // bound of its own already decides (a looser new one would not be the limit) and the
        // caller wants it said.
        let bounded = tool
            .params
            .iter()
            .any(|p| p.name == site.name && p.shape.max.is_some());
        if let Some(d) = site.description.as_ref().filter(|d| {
            self.constraint == ConstraintKind::DescribedBound && d.editable().is_ok() && !bounded
        }) {
            let sentence = self.writer().bound(bound, enforced);
            let new = prose::attach::append(d.text.as_deref().unwrap_or(""), &[sentence]);
            self.retext(d, &new)?;
        }
        if json && is_python(&site.value.file) {
            let entry = python::property_entry(&bound.json());
            self.insert_into_property(site, ConstraintMutation, &entry)?;
        } else if json {
            self.insert_into_property(site, ConstraintMutation, &format!(" {},", bound.json()))?;
        } else if is_python(&site.entry.file) {
            let (keyword, n) = python::bound_keyword(bound);
            let value = n.to_string();
            python::field_keyword(
                &mut self.e,
                self.root,
                site,
                keyword,
                &value,
                ConstraintMutation,
            )?;
        } else {
            let base = site.base.as_ref().expect("constrainable() checked");
            self.e
                .insert(self.root, &base.file, base.bytes.1, bound.zod())?;
        }
        if !enforced {
            return Ok(false);
        }
        let around = bound.enforce_in(wrap::is_python_handler(tool), &site.name);
        wrap::wrap(&mut self.e, self.root, tool, &around)?;
        self.effects.push(Effect::Enforced {
            tool: tool.name.clone(),
            param: site.name.clone(),
        });
        Ok(true)
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

    /// Adds to (or writes) the description of one parameter the facts its schema gives.
    fn param_describe(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let schema = tool.sites.schema.as_ref().expect("applies() checked");
        let sites = describable_params(tool).expect("applies() checked");
        let site = *self.rng.pick(&sites).expect("never empty");
        let facts = prose::facts::of_tool(tool, &[], None);
        let param = facts
            .params
            .iter()
            .find(|p| p.name == site.name)
            .expect("sites and params are read together");
        let sentences = self.writer().param_facts(param);
        match (&site.description, schema.json) {
            (Some(d), _) => {
                let new = prose::attach::append(d.text.as_deref().unwrap_or(""), &sentences);
                self.retext(d, &new)?
            }
            (None, false) if is_python(&site.entry.file) => python::field_keyword(
                &mut self.e,
                self.root,
                site,
                "description",
                &python::string(&sentences.join(" ")),
                ParameterDescriptionUpdate,
            )?,
            (None, true) if is_python(&site.value.file) => self.insert_into_property(
                site,
                ParameterDescriptionUpdate,
                &format!(
                    " {},",
                    python::json_entry("description", &python::string(&sentences.join(" ")))
                ),
            )?,
            (None, false) => self.e.insert(
                self.root,
                &site.value.file,
                site.value.bytes.1,
                format!(".describe({})", js_string(&sentences.join(" "))),
            )?,
            (None, true) => self.insert_into_property(
                site,
                ParameterDescriptionUpdate,
                &format!(" description: {},", js_string(&sentences.join(" "))),
            )?,
        }
        Ok(site.name.clone())
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

/// A new constant or class name beside `holder`: `ECHO_TOOL_LITE`, `EchoToolLite`.
fn holder_variant(holder: &str, suffix: &str) -> String {
    if holder
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        format!("{holder}_{}", suffix.to_ascii_uppercase())
    } else {
        let mut chars = suffix.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase()).into_iter();
        format!("{holder}{}", first.chain(chars).collect::<String>())
    }
}

fn with_bytes(span: &Span, start: usize, end: usize) -> Span {
    Span {
        bytes: (start, end),
        ..span.clone()
    }
}

/// The first occurrence of `word` in `text` not inside a longer identifier.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}
