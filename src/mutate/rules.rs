//! The rules backend: the 11 operators as deterministic source edits on the anchored sites,
//! for every registration style anchoring supports. No network, no model: same seed, same edits.
//!
//! Over 500 lines on purpose: `applies` and `Draft::apply` are the operator table, one arm per
//! operator, and the site surgeries they share follow them, so that a rule reads beside its
//! siblings. What each operator claims lives in `behaviours.rs`, handler wrapping in `wrap.rs`,
//! routing removal in `unroute.rs`.

use std::path::Path;

use super::behaviours::{Bound, NEW_PARAMS, NewParam, around_params_in};
use super::python::{self, is_python};
use super::splice::{Edits, append_entry, indent_at, item_range, js_string, statement_range};
use super::words::{self, VARIANTS};
use super::{Context, MutateError, Proposal, Rng, unroute, wrap};
use crate::inventory::{ParamSite, RouteKind, Span, Tool};
use crate::operators::Builtin::{self, *};
use crate::validate::Effect;

/// The operators the rules backend implements: every built-in one.
pub const OPERATORS: &[Builtin] = Builtin::ALL;

/// Why `op` cannot change `tool`, or Ok when it can.
pub fn applies(op: Builtin, tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    let s = &tool.sites;
    let schema = s.schema.as_ref();
    let can_describe = s.description.is_some();
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
            if op == ToolIntegration && !can_describe {
                return Err("its description is not a literal in the definition");
            }
            Ok(())
        }
        ToolReplacement => {
            if s.name.is_none() && !python::names_by_registration(tool) {
                return Err("its name is not written in its definition");
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
        ConstraintMutation => constrainable(tool).map(|_| ()),
        ParameterPruning => optional_params(tool)
            .first()
            .map(|_| ())
            .ok_or("it has no optional parameter to remove"),
        InterfaceRefactoring => {
            if !can_describe {
                return Err("its description is not a literal in the definition");
            }
            applies(FlexibleExpansion, tool, all).or_else(|_| applies(ParameterPruning, tool, all))
        }
        ToolDescriptionUpdate => can_describe
            .then_some(())
            .ok_or("its description is not a literal in the definition"),
        ParameterDescriptionUpdate => describable_param(tool).map(|_| ()),
        JointDescriptionUpdate => {
            if !can_describe {
                return Err("its description is not a literal in the definition");
            }
            describable_param(tool).map(|_| ())
        }
    }
}

/// Whether another tool's parameters are read from the same object (a copy made by spreading
/// a definition or instancing a class again).
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
    if contains(reg, name) || s.holder.is_some() {
        Ok(())
    } else {
        Err("its name is not written where it is registered")
    }
}

fn contains(outer: &Span, inner: &Span) -> bool {
    outer.file == inner.file && outer.bytes.0 <= inner.bytes.0 && inner.bytes.1 <= outer.bytes.1
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

fn describable_param(tool: &Tool) -> Result<&ParamSite, &'static str> {
    let schema = tool
        .sites
        .schema
        .as_ref()
        .ok_or("its input schema is not written out literally")?;
    schema.params.first().ok_or("it has no parameters")
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
        if schema.json || site.base.is_some() || schema.python.is_some() {
            return Ok((site, bound));
        }
    }
    Err("no string, number or array parameter takes a new bound")
}

/// The parameters with a real effect that the tool does not have yet.
fn fresh_params(tool: &Tool) -> Vec<&'static NewParam> {
    NEW_PARAMS
        .iter()
        .filter(|p| !tool.params.iter().any(|q| q.name == p.name))
        .collect()
}

/// Proposes the edits of operator `op` on one tool chosen by the seed among those it applies to.
pub fn propose(op: Builtin, ctx: &Context) -> Result<Proposal, MutateError> {
    let tools = &ctx.inventory.tools;
    let fitting: Vec<&Tool> = tools
        .iter()
        .filter(|t| !ctx.avoid.contains(&t.name))
        .filter(|t| applies(op, t, tools).is_ok())
        .collect();
    let mut rng = Rng::new(ctx.seed);
    let Some(tool) = rng.pick(&fitting).copied() else {
        if !ctx.avoid.is_empty() && tools.iter().any(|t| applies(op, t, tools).is_ok()) {
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
                    applies(op, t, tools).unwrap_err()
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
}

impl Draft<'_> {
    fn apply(&mut self, op: Builtin, tool: &Tool, all: &[Tool]) -> Result<String, MutateError> {
        let name = &tool.name;
        Ok(match op {
            ToolAddition => {
                let new = self.add_copy(tool)?;
                format!("Tool Addition: added `{new}`, an alias that behaves as `{name}`")
            }
            ToolReplacement => {
                let new = words::join(name, "v2");
                self.rename(tool, &new)?;
                if tool.sites.description.is_some() {
                    let old = tool.description.as_deref().unwrap_or("");
                    self.describe(tool, &format!("Replaces `{name}`. {old}"))?;
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
                let new = self.add_copy(tool)?;
                let old = tool
                    .description
                    .as_deref()
                    .unwrap_or("")
                    .trim_end_matches('.');
                self.describe(
                    tool,
                    &format!("{old}. Also available as `{new}`, which behaves the same."),
                )?;
                format!(
                    "Tool Integration: added `{new}` beside `{name}` and pointed one at the other"
                )
            }
            FlexibleExpansion => {
                let count = 1 + self.rng.below(2);
                let added = self.add_params(tool, count)?;
                format!("Flexible Expansion: `{name}` takes new optional parameter(s) {added}")
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
                let mut after = tool.clone();
                let change = if applies(FlexibleExpansion, tool, all).is_ok() {
                    let added = self.add_params(tool, 1)?;
                    let names: Vec<String> = self
                        .effects
                        .iter()
                        .filter_map(|e| e.param().map(str::to_string))
                        .collect();
                    after.params.extend(
                        NEW_PARAMS
                            .iter()
                            .filter(|p| names.iter().any(|n| n == p.name))
                            .map(|p| crate::inventory::Param {
                                name: p.name.into(),
                                ty: Some(p.ty.into()),
                                description: Some(p.description.into()),
                                required: false,
                            }),
                    );
                    format!("added {added}")
                } else {
                    let pruned = self.prune(tool)?;
                    after.params.retain(|p| p.name != pruned);
                    format!("removed `{pruned}`")
                };
                let text = words::tool_description(&after, self.rng.below(3));
                self.describe(tool, &text)?;
                format!("Interface Refactoring: `{name}` {change}, with its description updated")
            }
            ToolDescriptionUpdate => {
                let text = words::tool_description(tool, self.rng.below(3));
                self.describe(tool, &text)?;
                format!("Tool Description Update: rewrote the description of `{name}`")
            }
            ParameterDescriptionUpdate => {
                let param = self.param_describe(tool)?;
                format!(
                    "Parameter Description Update: rewrote the description of `{name}`.`{param}`"
                )
            }
            JointDescriptionUpdate => {
                let text = words::tool_description(tool, self.rng.below(3));
                self.describe(tool, &text)?;
                let param = self.param_describe(tool)?;
                format!(
                    "Joint Description Update: rewrote the descriptions of `{name}` and `{name}`.`{param}`"
                )
            }
        })
    }

    /// Removes one optional parameter, chosen by the seed; returns its name.
    fn prune(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let site = *self
            .rng
            .pick(&optional_params(tool))
            .expect("applies() checked");
        let schema = tool.sites.schema.as_ref().expect("applies() checked");
        if schema.python == Some(crate::inventory::PyParams::Signature) {
            python::prune_signature_param(&mut self.e, self.root, site)?;
            return Ok(site.name.clone());
        }
        let (start, end) = item_range(self.e.text(self.root, &site.entry.file)?, &site.entry);
        self.e
            .replace(self.root, &with_bytes(&site.entry, start, end), "")?;
        Ok(site.name.clone())
    }

    fn describe(&mut self, tool: &Tool, text: &str) -> Result<(), MutateError> {
        let site = tool
            .sites
            .description
            .as_ref()
            .expect("callers check the description site");
        self.e.replace(self.root, site, js_string(text))
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
    fn add_copy(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let (suffix, purpose) = VARIANTS[self.rng.below(VARIANTS.len())];
        let new = words::join(&tool.name, suffix);
        let old = tool
            .description
            .as_deref()
            .unwrap_or("")
            .trim_end_matches('.');
        let description = format!("{}. {old}.", purpose.replace("{name}", &tool.name));
        let s = &tool.sites;
        let reg = s.registration.as_ref().expect("applies() checked");
        if python::names_by_registration(tool) {
            return self.add_python_alias(tool, reg, &new, &description);
        }
        let name = s.name.as_ref().expect("applies() checked");
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let region = &text[reg.bytes.0..reg.bytes.1];
        let copy = if contains(reg, name) {
            let mut cuts = vec![(name.bytes, js_string(&new))];
            if let Some(d) = s.description.as_ref().filter(|d| contains(reg, d)) {
                cuts.push((d.bytes, js_string(&description)));
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
                    if let Some(d) = s.description.as_ref().filter(|d| contains(decl, d)) {
                        cuts.push((d.bytes, js_string(&description)));
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
                    let (name_js, description_js) = (js_string(&new), js_string(&description));
                    if is_python(&reg.file) {
                        let derived = python::derived_object(holder, &new, &description);
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
        let after = text[reg.bytes.1..].trim_start();
        let is_item = !region.trim_end().ends_with(';') && after.starts_with([',', ']', '}', ')']);
        let indent = indent_at(&text, reg.bytes.0).to_string();
        if is_item {
            self.e.insert(
                self.root,
                &reg.file,
                reg.bytes.1,
                format!(",\n{indent}{copy}"),
            )?;
        } else {
            self.e.insert(
                self.root,
                &reg.file,
                reg.bytes.1,
                format!("\n{indent}{copy}"),
            )?;
        }
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
                operator: crate::operators::Builtin::ToolAddition.into(),
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
    fn add_params(&mut self, tool: &Tool, count: usize) -> Result<String, MutateError> {
        let chosen = self.new_params(tool, count);
        let schema = tool.sites.schema.as_ref().expect("applies() checked");
        let python_schema = is_python(&schema.object.file);
        let entries: Vec<String> = chosen
            .iter()
            .map(|p| match &schema.zod {
                _ if python_schema => python::new_param(schema, p),
                Some(z) if !schema.json => format!(
                    "{}: {z}.number().int().min(1).optional().describe({})",
                    p.name,
                    js_string(p.description)
                ),
                _ => format!(
                    "{}: {{ type: {}, minimum: 1, description: {} }}",
                    p.name,
                    js_string(p.ty),
                    js_string(p.description)
                ),
            })
            .collect();
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
    fn new_params(&mut self, tool: &Tool, count: usize) -> Vec<&'static NewParam> {
        let fresh = fresh_params(tool);
        let start = self.rng.below(fresh.len().max(1));
        fresh
            .iter()
            .cycle()
            .skip(start)
            .take(count.min(fresh.len()))
            .copied()
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
        if wrap::wrappable(self.root, tool).is_err() {
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
        self.e
            .insert(self.root, &site.value.file, site.value.bytes.0 + 1, entry)
    }

    fn param_describe(&mut self, tool: &Tool) -> Result<String, MutateError> {
        let schema = tool.sites.schema.as_ref().expect("applies() checked");
        let site = *self
            .rng
            .pick(&preferred(&schema.params))
            .expect("applies() checked there are parameters");
        let param = tool
            .params
            .iter()
            .find(|p| p.name == site.name)
            .expect("sites and params are read together");
        let text = js_string(&words::param_description(param, self.rng.below(2)));
        match (&site.description, schema.json) {
            (Some(d), _) => self.e.replace(self.root, d, text)?,
            (None, false) if is_python(&site.entry.file) => python::field_keyword(
                &mut self.e,
                self.root,
                site,
                "description",
                &text,
                ParameterDescriptionUpdate,
            )?,
            (None, true) if is_python(&site.value.file) => self.insert_into_property(
                site,
                ParameterDescriptionUpdate,
                &format!(" {},", python::json_entry("description", &text)),
            )?,
            (None, false) => self.e.insert(
                self.root,
                &site.value.file,
                site.value.bytes.1,
                format!(".describe({text})"),
            )?,
            (None, true) => self.insert_into_property(
                site,
                ParameterDescriptionUpdate,
                &format!(" description: {text},"),
            )?,
        }
        Ok(site.name.clone())
    }
}

/// The text of `region` with the given byte ranges (inside it) replaced.
fn cut(text: &str, region: &Span, mut cuts: Vec<((usize, usize), String)>) -> String {
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
