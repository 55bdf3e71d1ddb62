//! Constraint Mutation: a parameter's constraint changed, in the kind the round or release
//! asks for (a new bound, a demotion or promotion, a new default, a loosened bound, values
//! accepted in capitals, or a new required parameter). The surgeries of most kinds live in
//! their own modules (`defaults.rs`, `loosen.rs`, `capitals.rs`); a new bound is written here.

use super::super::behaviours::Bound;
use super::super::capitals::{self, Synonym};
use super::super::dialect::{dialect_of, handler_dialect};
use super::super::loosen::{self, Loosening};
use super::super::{ConstraintKind, MutateError, Presence, defaults, json_required, prose};
use super::expansion::{self, Expansion};
use super::{Draft, preferred, shared_checks};
use mcpevol_core::inventory::{ParamSite, Style, Tool};
use mcpevol_core::operators::Builtin::{ConstraintMutation, FlexibleExpansion};
use mcpevol_oracle::validate::Effect;

/// What Constraint Mutation found, by the kind of change asked for: the parameter and what
/// its constraint becomes.
pub(super) enum Constraint<'t> {
    Demotion(&'t ParamSite, String),
    Promotion(&'t ParamSite),
    /// The same in a JSON schema, whose `required` list the handler's wrapper keeps.
    JsonDemotion(&'t ParamSite, String),
    JsonPromotion(&'t ParamSite),
    NewRequired(Expansion<'t>),
    Loosen(&'t ParamSite, Loosening),
    Capitals(&'t ParamSite, Vec<Synonym>),
    /// A default declared in a JSON schema that has none.
    JsonDefault(&'t ParamSite, String),
    /// A default written in the source changed to another valid value.
    Redefault(&'t ParamSite, String),
    Bound(&'t ParamSite, Bound),
}

pub(super) fn check<'t>(
    kind: ConstraintKind,
    tool: &'t Tool,
    all: &[Tool],
) -> Result<Constraint<'t>, &'static str> {
    Ok(match kind {
        ConstraintKind::Demotion if json_schema(tool) => {
            let (site, value) = json_required::demotable(tool)?;
            Constraint::JsonDemotion(site, value)
        }
        ConstraintKind::Demotion => {
            let (site, value) = defaults::demotable(tool)?;
            Constraint::Demotion(site, value)
        }
        ConstraintKind::Promotion if json_schema(tool) => {
            Constraint::JsonPromotion(json_required::promotable(tool)?)
        }
        ConstraintKind::Promotion => Constraint::Promotion(defaults::promotable(tool)?),
        ConstraintKind::Loosen => {
            let (site, l) = loosen::loosenable(tool)?;
            Constraint::Loosen(site, l)
        }
        ConstraintKind::Capitals => {
            let (site, synonyms) = capitals::widenable(tool)?;
            Constraint::Capitals(site, synonyms)
        }
        ConstraintKind::Redefault => match defaults::json_declarable(tool) {
            Some((site, value)) => Constraint::JsonDefault(site, value),
            None => {
                let (site, value) = defaults::redefaultable(tool)?;
                Constraint::Redefault(site, value)
            }
        },
        // A new required parameter is Flexible Expansion's, into a zod shape only: the one
        // schema form that then refuses calls without it by itself (a JSON schema's `required`
        // list is a promise the handler may not keep, and a Python signature cannot take a
        // parameter without a default after ones with defaults).
        ConstraintKind::NewRequired => {
            shared_checks(FlexibleExpansion, tool, all)?;
            let plan = expansion::check(tool)?;
            match plan.schema {
                s if s.zod.is_some()
                    && !s.json
                    && s.python.is_none()
                    && dialect_of(&s.object.file).writes_zod() =>
                {
                    Constraint::NewRequired(plan)
                }
                _ => {
                    return Err(
                        "a required parameter is added only to a zod shape, which refuses calls without it",
                    );
                }
            }
        }
        ConstraintKind::DescribedBound
        | ConstraintKind::Bound
        | ConstraintKind::Title
        | ConstraintKind::NewOption => {
            let (site, bound) = constrainable(tool)?;
            Constraint::Bound(site, bound)
        }
    })
}

/// Whether `tool` is registered with the SDK (`tool`, `registerTool`, a class or helper of
/// the same kind) under a zod shape, which the SDK checks every call against.
fn zod_registered(tool: &Tool) -> bool {
    tool.style == Style::Register
        && tool.sites.schema.as_ref().is_some_and(|s| {
            s.zod.is_some()
                && !s.json
                && s.python.is_none()
                && dialect_of(&s.object.file).writes_zod()
        })
}

/// Whether `tool`'s input schema is a JSON schema.
fn json_schema(tool: &Tool) -> bool {
    tool.sites.schema.as_ref().is_some_and(|s| s.json)
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
        let Some(bound) =
            Bound::for_param(&site.name, ty).filter(|_| schema.json || ty != "integer")
        else {
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

impl Draft<'_> {
    // Long: one arm per kind of constraint change, each a few lines that call its module.
    pub(super) fn constraint(
        &mut self,
        plan: Constraint,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let name = &tool.name;
        let json = tool.sites.schema.as_ref().is_some_and(|s| s.json);
        Ok(match plan {
            Constraint::Demotion(site, value) => {
                defaults::demote(&mut self.e, self.root, site, &value)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is optional now, {value} when it is not sent",
                    site.name
                )
            }
            Constraint::Promotion(site) => {
                defaults::promote(&mut self.e, self.root, site)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is required now",
                    site.name
                )
            }
            Constraint::JsonDemotion(site, value) => {
                let around = json_required::demote(&mut self.e, self.root, tool, site, &value)?;
                self.insert_into_property(
                    site,
                    ConstraintMutation,
                    &format!(" default: {value},"),
                )?;
                handler_dialect(tool).wrap(&mut self.e, self.root, tool, &around)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is optional now, {value} when it is not sent",
                    site.name
                )
            }
            Constraint::JsonPromotion(site) => {
                let around = json_required::promote(&mut self.e, self.root, tool, site)?;
                handler_dialect(tool).wrap(&mut self.e, self.root, tool, &around)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` is required now, and calls without it are refused",
                    site.name
                )
            }
            Constraint::NewRequired(plan) => {
                let added = self.add_params(&plan, tool, all, 1, Presence::Required)?;
                format!(
                    "Constraint Mutation: `{name}` requires a new parameter {}; calls without it are refused",
                    super::expansion::ticked(&added)
                )
            }
            Constraint::Loosen(site, l) => {
                loosen::loosen(&mut self.e, self.root, site, json, l)?;
                format!(
                    "Constraint Mutation: `{name}`.`{}` allows up to {} now (was {})",
                    site.name, l.new, l.old
                )
            }
            Constraint::Capitals(site, synonyms) => {
                capitals::widen(&mut self.e, self.root, site, json, &synonyms)?;
                let around = capitals::around(&site.name, &synonyms);
                handler_dialect(tool).wrap(&mut self.e, self.root, tool, &around)?;
                (self.effects).extend(capitals::claims(&tool.name, &site.name, &synonyms));
                let values: Vec<String> = synonyms.iter().map(|(v, _)| format!("`{v}`")).collect();
                format!(
                    "Constraint Mutation: `{name}`.`{}` accepts its values in capitals too ({})",
                    site.name,
                    values.join(", ")
                )
            }
            Constraint::JsonDefault(site, value) => {
                let entry = format!(" default: {value},");
                self.insert_into_property(site, ConstraintMutation, &entry)?;
                redefaulted(name, site, &value)
            }
            Constraint::Redefault(site, value) => {
                defaults::redefault(&mut self.e, self.root, site, &value)?;
                redefaulted(name, site, &value)
            }
            Constraint::Bound(site, bound) => {
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
        })
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
        let handler = handler_dialect(tool);
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
            let sentence = self.writer().bound(bound);
            let new = prose::attach::append(d.text.as_deref().unwrap_or(""), &[sentence]);
            self.retext(d, &new)?;
        }
        if json {
            let entry = dialect_of(&site.value.file).json_bound_entry(bound);
            self.insert_into_property(site, ConstraintMutation, &entry)?;
        } else {
            dialect_of(&site.entry.file).declare_bound(&mut self.e, self.root, site, bound)?;
        }
        // A zod shape registered with the SDK refuses a value beyond its `.max()` before the
        // handler runs, as it refuses a call without a required parameter: a check of our own
        // in front of the handler would be dead code no maintainer writes.
        if zod_registered(tool) {
            self.effects.push(Effect::Enforced {
                tool: tool.name.clone(),
                param: site.name.clone(),
            });
            return Ok(true);
        }
        if handler.wrappable(self.root, tool).is_err() {
            return Ok(false);
        }
        let around = handler.enforce(bound, &site.name);
        handler.wrap(&mut self.e, self.root, tool, &around)?;
        self.effects.push(Effect::Enforced {
            tool: tool.name.clone(),
            param: site.name.clone(),
        });
        Ok(true)
    }
}

/// The summary of a changed default.
fn redefaulted(name: &str, site: &ParamSite, value: &str) -> String {
    format!(
        "Constraint Mutation: `{name}`.`{}` defaults to {value} now",
        site.name
    )
}
