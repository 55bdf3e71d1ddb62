//! The description operators: Tool Description Update (facts added to the tool's description,
//! or a display title beside it), Parameter Description Update (facts added to one
//! parameter's description, or one written) and Joint Description Update (both).

use super::super::dialect::dialect_of;
use super::super::{ConstraintKind, MutateError, Rng, prose, title};
use super::{Draft, describable, preferred};
use mcpevol_core::inventory::{DescriptionSite, ParamSite, SchemaSite, Tool};
use mcpevol_core::operators::Builtin::{self, *};

/// What a description operator found: the description sites it writes.
pub(super) enum Description<'t> {
    /// The tool's description, which a title is written beside.
    Title(&'t DescriptionSite),
    Tool(&'t DescriptionSite),
    Param(Params<'t>),
    Joint(&'t DescriptionSite, Params<'t>),
}

/// The parameters whose description can be rewritten (or added) with a fact their schema
/// gives, clients' view first (never empty), in their schema.
pub(super) struct Params<'t> {
    schema: &'t SchemaSite,
    sites: Vec<&'t ParamSite>,
}

pub(super) fn check<'t>(
    op: Builtin,
    kind: ConstraintKind,
    tool: &'t Tool,
    all: &[Tool],
) -> Result<Description<'t>, &'static str> {
    Ok(match op {
        ToolDescriptionUpdate if kind == ConstraintKind::Title => {
            Description::Title(title::titleable(tool)?)
        }
        ToolDescriptionUpdate => {
            let site = describable(tool)?;
            news(tool, all)?;
            Description::Tool(site)
        }
        ParameterDescriptionUpdate => Description::Param(describable_params(tool)?),
        _ => {
            let site = describable(tool)?;
            news(tool, all)?;
            Description::Joint(site, describable_params(tool)?)
        }
    })
}

/// Whether the rules know something true to add to the tool's description (from its
/// declared output and related tools; the handler's code is read when proposing), or can
/// reword it where it stands.
fn news(tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    let facts = prose::facts::of_tool(tool, all, None);
    let mut rng = Rng::new(0);
    let rewordable =
        (tool.description.as_deref()).is_some_and(|d| prose::reword::reword(d).is_some());
    if prose::Writer::new(&mut rng)
        .tool_facts(&facts, 1)
        .is_empty()
        && !rewordable
    {
        return Err("the rules know nothing its description lacks, and cannot reword it");
    }
    Ok(())
}

/// The parameters whose description can be rewritten (or added) with a fact their schema
/// gives, clients' view first.
fn describable_params(tool: &Tool) -> Result<Params<'_>, &'static str> {
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
    Ok(Params {
        schema,
        sites: found,
    })
}

impl Draft<'_> {
    pub(super) fn description(
        &mut self,
        plan: Description,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let name = &tool.name;
        Ok(match plan {
            Description::Title(site) => {
                let title = self.title(site, tool)?;
                format!("Tool Description Update: `{name}` is titled \"{title}\"")
            }
            Description::Tool(site) => {
                self.add_facts(site, tool, all)?;
                format!("Tool Description Update: rewrote the description of `{name}`")
            }
            Description::Param(params) => {
                let param = self.param_describe(&params, tool)?;
                format!(
                    "Parameter Description Update: rewrote the description of `{name}`.`{param}`"
                )
            }
            Description::Joint(site, params) => {
                self.add_facts(site, tool, all)?;
                let param = self.param_describe(&params, tool)?;
                format!(
                    "Joint Description Update: rewrote the descriptions of `{name}` and `{name}`.`{param}`"
                )
            }
        })
    }

    /// Gives the tool a display title beside its description at `site`; returns the title.
    fn title(&mut self, site: &DescriptionSite, tool: &Tool) -> Result<String, MutateError> {
        let title = title::title_for(&tool.name);
        let text = self.e.text(self.root, &site.span.file)?;
        // A definition object registered by a loop (`for (const t of TOOLS) server.tool(t.name,
        // t.description, ...)`) is read field by field: a title in it is never listed.
        let looped = (tool.sites.registration.as_ref())
            .filter(|r| r.file == site.span.file && tool.sites.routes.is_empty())
            .is_some_and(|r| text.get(r.bytes.0..).is_some_and(|t| t.starts_with('{')));
        if looped {
            return Err(MutateError::NotApplicable {
                operator: ToolDescriptionUpdate.into(),
                why: format!(
                    "`{}` is registered from a definition object whose fields are read one by one, so a title in it is not listed",
                    tool.name
                ),
            });
        }
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

    /// One or two sentences of facts the description (at `site`) does not state yet.
    fn add_facts(
        &mut self,
        site: &DescriptionSite,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<(), MutateError> {
        let facts = self.facts(tool, all)?;
        let most = 1 + self.rng.below(2);
        let sentences = self.writer().tool_facts(&facts, most);
        if sentences.is_empty() {
            // Nothing to add: the description is reworded where it stands instead.
            let old = site.text.as_deref().unwrap_or_default();
            let Some(new) = prose::reword::reword(old) else {
                return Err(MutateError::Description(format!(
                    "`{}`: nothing true to add to it, and no verb to reword",
                    tool.name
                )));
            };
            return self.retext(site, &new);
        }
        self.add_sentences(site, &sentences)
    }

    /// Adds to (or writes) the description of one parameter the facts its schema gives.
    fn param_describe(&mut self, params: &Params, tool: &Tool) -> Result<String, MutateError> {
        let schema = params.schema;
        let site = *self.rng.pick(&params.sites).expect("never empty");
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
            (None, false) => {
                // A schema held in a constant (`body: bodyField`) keeps its description there:
                // the new one, written here, starts from it.
                let held = (tool.params.iter())
                    .find(|p| p.name == site.name)
                    .and_then(|p| p.description.as_deref());
                let text = match held {
                    Some(old) => prose::attach::append(old, &sentences),
                    None => sentences.join(" "),
                };
                dialect_of(&site.entry.file).describe_param(&mut self.e, self.root, site, &text)?
            }
            (None, true) => {
                let entry =
                    dialect_of(&site.value.file).json_description_entry(&sentences.join(" "));
                self.insert_into_property(site, ParameterDescriptionUpdate, &entry)?
            }
        }
        Ok(site.name.clone())
    }
}
