//! A batch form of a tool a low-level server lists by a JSON definition and routes by name
//! (`case "get_note":`): its definition copied under the plural name with `items` (a list of
//! the tool's argument sets) as its schema, its name routed beside the tool's, and the router's
//! wrapper running the tool's own route once per set. (`batch_form.rs` writes the same for a
//! zod registration, whose handler the copy carries.)

use super::super::MutateError;
use super::super::around::Around;
use super::super::batch_form::{self, ITEMS, MOST};
use super::super::dialect::handler_dialect;
use super::super::prose::Note;
use super::super::splice::{contains, find_word, indent_at, js_string};
use super::super::wrap;
use super::copies::holder_variant;
use super::{Draft, cut};
use mcpevol_core::inventory::{DescriptionSite, RouteKind, Span, Tool};
use mcpevol_oracle::validate::Effect;

/// A tool's definition in a low-level server's list, routed by name: the definition and,
/// inside it, the tool's name, description and input schema. What a listed batch or single
/// form copies.
pub(super) struct Listed<'t> {
    registration: &'t Span,
    /// Where the definition is a constant the list names (`UPDATE_TASK_TOOL`): the constant
    /// and its declaration in the same file, which the copy is made of.
    held: Option<(&'t str, &'t Span)>,
    pub(super) name: &'t Span,
    pub(super) description: &'t DescriptionSite,
    pub(super) schema: &'t Span,
}

/// Where a listed batch form is written from: the definition, and the batch form's name.
pub(super) struct ListedBatch<'t> {
    def: Listed<'t>,
    plural: String,
}

/// The sites a listed batch form of `tool` is written from, or why none can be written.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<ListedBatch<'t>, &'static str> {
    let def = listed_as(tool, Written::Any)?;
    if tool.params.is_empty() {
        return Err("it takes no arguments, so a batch of calls would repeat one answer");
    }
    let plural = batch_form::free_name(tool, all)?;
    Ok(ListedBatch { def, plural })
}

/// How a listed definition's input schema must be written for a form to be copied from it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Written {
    /// A JSON schema literal, whose parameters' entries a form may take apart.
    Literal,
    /// Any expression (`zodToJsonSchema(ArgsSchema)`): a batch form's `items` take it whole,
    /// as the server lists it for the tool.
    Any,
}

/// `tool`'s definition in a list, where it is a JSON definition written out there (or in a
/// constant of the same file) and routed by `case` or comparison; else why not.
pub(super) fn listed(tool: &Tool) -> Result<Listed<'_>, &'static str> {
    listed_as(tool, Written::Literal)
}

/// As [`listed`], its input schema written as `written` allows.
fn listed_as(tool: &Tool, written: Written) -> Result<Listed<'_>, &'static str> {
    let s = &tool.sites;
    let reg = s
        .registration
        .as_ref()
        .ok_or("no registration site was found")?;
    if !["js", "mjs", "cjs", "ts", "mts", "cts"]
        .iter()
        .any(|e| reg.file.ends_with(&format!(".{e}")))
    {
        return Err("a listed batch form is written in JavaScript or TypeScript only");
    }
    let routed = !s.routes.is_empty()
        && (s.routes.iter()).all(|r| matches!(r.kind, RouteKind::Case | RouteKind::Compare));
    if !routed {
        return Err("its calls are not routed by a case or a comparison of its name");
    }
    // The definition is written in the list, or declared as a constant in the same file.
    let held = match s.name.as_ref().is_some_and(|n| contains(reg, n)) {
        true => None,
        false => Some((
            s.holder
                .as_deref()
                .ok_or("its name is not written in its definition")?,
            (s.declaration.as_ref())
                .filter(|d| d.file == reg.file)
                .ok_or("its definition is declared in another file")?,
        )),
    };
    let within = held.map_or(reg, |(_, decl)| decl);
    let name = (s.name.as_ref())
        .filter(|n| contains(within, n))
        .ok_or("its name is not written in its definition")?;
    let description = (s.description.as_ref())
        .filter(|d| contains(within, &d.span))
        .ok_or("its description is not written in its definition")?;
    let literal = (s.schema.as_ref())
        .filter(|sc| sc.json)
        .and_then(|sc| sc.json_root.as_ref())
        .filter(|root| contains(within, root));
    let expression =
        (s.input_schema.as_ref()).filter(|v| written == Written::Any && contains(within, v));
    let schema = literal
        .or(expression)
        .ok_or("its input schema is not a JSON schema written in its definition")?;
    Ok(Listed {
        registration: reg,
        held,
        name,
        description,
        schema,
    })
}

/// The constant holding the batch form's definition, named as the tool's is with the tool's
/// name in it made the new one (`UPDATE_TASK_TOOL`: `UPDATE_TASKS_TOOL`), where the tool's
/// name is in it.
fn holder_for(holder: &str, tool: &str, new: &str) -> Option<String> {
    let spelled = |name: &str, upper: bool| {
        let words = mcpevol_core::words::words(name).join("_");
        if upper {
            words.to_ascii_uppercase()
        } else {
            words
        }
    };
    [true, false].into_iter().find_map(|upper| {
        let (old, new) = (spelled(tool, upper), spelled(new, upper));
        holder
            .contains(&old)
            .then(|| holder.replacen(&old, &new, 1))
    })
}

/// Code for the router's wrapper: a call of the batch form runs the tool's route once per
/// argument set, through the handler the wrapper holds, and answers their content in order;
/// the first set that fails ends it with that answer. More sets than the description allows
/// are refused here: a low-level server does not enforce its listed schema's `maxItems`.
fn runs_each(source: &str) -> Around {
    let source = js_string(source);
    Around {
        before: format!(
            "const sets = input[\"{ITEMS}\"];\n\
             if (!Array.isArray(sets) || sets.length === 0 || sets.length > {MOST}) {{\n\
             return {{ content: [{{ type: \"text\", text: \"{ITEMS}: give 1 to {MOST} sets of arguments\" }}], isError: true }};\n\
             }}\n\
             const content = [];\n\
             for (const set of sets) {{\n\
             const call = typeof first === \"string\" ? [{source}, set, ...callArgs.slice(2)] : first?.params ? [{{ ...first, params: {{ ...first.params, name: {source}, arguments: set }} }}, ...callArgs.slice(1)] : [{{ ...first, name: {source}, arguments: set }}, ...callArgs.slice(1)];\n\
             const answer = await handler.apply(this, call);\n\
             if (answer?.isError) {{\n\
             return answer;\n\
             }}\n\
             content.push(...(answer?.content ?? []));\n\
             }}\n\
             return {{ content }};"
        ),
        after: String::new(),
    }
}

impl Draft<'_> {
    /// Writes the listed batch form of `tool`; returns its name, or None (and writes nothing)
    /// where the router is a function declaration (its body is wrapped in place, with no
    /// handler the loop could call again) or takes no arguments.
    pub(super) fn add_listed_batch(
        &mut self,
        sites: ListedBatch<'_>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        if !wrap::routes_by_expression(self.root, tool) {
            return Ok(None);
        }
        let ListedBatch { def, plural: new } = sites;
        let about = self.writer().note(&Note::Batch {
            of: &tool.name,
            items: ITEMS,
            most: MOST,
        });
        let text = self.e.text(self.root, &def.registration.file)?.to_string();
        let own = &text[def.schema.bytes.0..def.schema.bytes.1];
        let items_about = js_string(&format!(
            "Argument sets of `{}`, one per call, answered in order.",
            tool.name
        ));
        let shape = format!(
            "{{ type: \"object\", properties: {{ {ITEMS}: {{ type: \"array\", items: {own}, minItems: 1, maxItems: {MOST}, description: {items_about} }} }}, required: [\"{ITEMS}\"] }}"
        );
        self.insert_listed_copy(&def, tool, &new, &about, shape, "batch")?;
        self.route(tool, &new)?;
        let mut batch = tool.clone();
        batch.name = new.clone();
        handler_dialect(tool).wrap(&mut self.e, self.root, &batch, &runs_each(&tool.name))?;
        self.added.push(new.clone());
        self.effects.push(Effect::Batch {
            tool: new.clone(),
            source: tool.name.clone(),
            items: ITEMS.to_string(),
        });
        Ok(Some(new))
    }

    /// Writes a copy of the definition `def` of `tool` named `new`, described by `about` and
    /// taking `shape` (a JSON schema), beside it: in the list, or as a second constant
    /// declared after the tool's (its name the tool's with `new` for the tool's name in it,
    /// else with `fallback` added) and listed after it.
    pub(super) fn insert_listed_copy(
        &mut self,
        def: &Listed<'_>,
        tool: &Tool,
        new: &str,
        about: &str,
        shape: String,
        fallback: &str,
    ) -> Result<(), MutateError> {
        let reg = def.registration;
        let text = self.e.text(self.root, &reg.file)?.to_string();
        // A shorthand entry (`{ name, inputSchema }`) keeps its key beside the new value.
        let (at, end) = def.schema.bytes;
        let shape = match text[..at].trim_end().ends_with(':') {
            true => shape,
            false => format!("{}: {shape}", &text[at..end]),
        };
        let cuts = vec![
            (def.name.bytes, js_string(new)),
            (def.description.span.bytes, js_string(about)),
            (def.schema.bytes, shape),
        ];
        match def.held {
            None => {
                let copy = cut(&text, reg, cuts);
                self.insert_beside(&text, reg, &copy)
            }
            Some((holder, decl)) => {
                let new_holder = holder_for(holder, &tool.name, new)
                    .filter(|h| find_word(&text, h).is_none())
                    .unwrap_or_else(|| holder_variant(holder, fallback));
                let mut copy = cut(&text, decl, cuts);
                if let Some(at) = find_word(&copy, holder) {
                    copy.replace_range(at..at + holder.len(), &new_holder);
                }
                let indent = indent_at(&text, decl.bytes.0).to_string();
                (self.e).insert(
                    self.root,
                    &decl.file,
                    decl.bytes.1,
                    format!("\n{indent}{copy}"),
                )?;
                let region = &text[reg.bytes.0..reg.bytes.1];
                let listed = match find_word(region, holder) {
                    Some(at) => format!(
                        "{}{new_holder}{}",
                        &region[..at],
                        &region[at + holder.len()..]
                    ),
                    None => new_holder,
                };
                self.insert_beside(&text, reg, &listed)
            }
        }
    }
}

#[cfg(test)]
#[test]
fn a_constant_of_the_batch_form_is_named_after_the_tools_constant() {
    assert_eq!(
        holder_for("UPDATE_TASK_TOOL", "update_task", "update_tasks").as_deref(),
        Some("UPDATE_TASKS_TOOL")
    );
    assert_eq!(holder_for("taskTool", "update_task", "update_tasks"), None);
}
