//! A copy of a tool registered beside it under a new name, routed to the same handler: what
//! Tool Addition and Tool Integration share (the check that a copy can be written, the names
//! free for it, the copy in each registration style, and the routing of its name).

use super::super::batch_form;
use super::super::dialect::dialect_of;
use super::super::prose::{self, Note};
use super::super::python;
use super::super::retext;
use super::super::splice::{contains, find_word, indent_at, js_string};
use super::super::{MutateError, words};
use super::{ByteCut, Draft, cut};
use mcpevol_core::inventory::{DescriptionForm, DescriptionSite, RouteKind, Span, Tool};
use mcpevol_core::operators::Builtin::ToolAddition;
use mcpevol_oracle::validate::Effect;

/// Suffixes of a tool added beside an existing one as its alias.
const ALIAS_SUFFIXES: [&str; 3] = ["alias", "v1", "compat"];

/// Why a release adds no tool beside `tool`: only an alias copy of it could be written.
pub(super) const NOTHING_NEW: &str = "no new tool the rules can write fits it (a batch or single form), and a release registers no alias copies";

/// Where a copy of a tool is written from, as its check found it.
#[derive(Clone, Copy)]
pub(super) enum Copyable<'t> {
    /// A decorated or `add_tool`-registered Python function: registered a second time, under
    /// a second decorator naming the alias.
    Registration { reg: &'t Span },
    /// A definition whose name is written: copied with the name (and description) changed.
    Named {
        reg: &'t Span,
        name: &'t Span,
        /// The constant or class the definition is declared as, where the registration names
        /// it instead of writing the name (None: the name is written in the registration).
        held_by: Option<&'t str>,
    },
}

/// Why no copy of `tool` can be registered, or where it is written from: the check Tool
/// Addition and Tool Integration begin with.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<Copyable<'t>, &'static str> {
    let copy = copyable(tool)?;
    if made_by_rules(&tool.name) {
        return Err(
            "its name is one the rules give a copy: a copy of it would be a copy of a copy",
        );
    }
    // A batch form the rules wrote (its one parameter the list of argument sets) is no tool
    // to copy: `convert_lengths_compat` would be a copy of a copy.
    if let [p] = &tool.params[..]
        && p.name == batch_form::ITEMS
        && p.ty.as_deref() == Some("array")
    {
        return Err("it is a batch form of another tool: a copy of it would be a copy of a copy");
    }
    if free_suffixes(tool, all, "").is_empty() {
        return Err("every name the rules give a copy of it is taken");
    }
    Ok(copy)
}

fn copyable(tool: &Tool) -> Result<Copyable<'_>, &'static str> {
    let s = &tool.sites;
    let reg = s
        .registration
        .as_ref()
        .ok_or("no registration site to copy was found")?;
    // A decorated Python function takes a second decorator naming the alias.
    if python::names_by_registration(tool) && reg.file.ends_with(".py") {
        return Ok(Copyable::Registration { reg });
    }
    let name = s
        .name
        .as_ref()
        .ok_or("its name is not written in its definition")?;
    let held_by = match contains(reg, name) {
        true => None,
        false => {
            Some((s.holder.as_deref()).ok_or("its name is not written where it is registered")?)
        }
    };
    // A copy of the registration alone would read the same description: the new tool would
    // say nothing of being an alias, and repeat another tool's words.
    if held_by.is_none()
        && let Some(d) = &s.description
        && !contains(reg, &d.span)
    {
        return Err(
            "its description is not written where it is registered, so a copy would repeat it",
        );
    }
    Ok(Copyable::Named { reg, name, held_by })
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
pub(super) fn made_by_rules(name: &str) -> bool {
    let last = words::words(name).pop().unwrap_or_default();
    ALIAS_SUFFIXES
        .iter()
        .chain(&[batch_form::SUFFIX])
        .any(|s| *s == last)
}

/// A new constant or class name beside `holder`: `ECHO_TOOL_LITE`, `EchoToolLite`.
pub(super) fn holder_variant(holder: &str, suffix: &str) -> String {
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

impl Draft<'_> {
    /// Registers a copy of `tool` under a new name, routed to the same handler.
    // Long: a copy is registered, routed and described in each registration style in turn; the styles share the names and spans found first.
    pub(super) fn add_copy(
        &mut self,
        copyable: Copyable,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let s = &tool.sites;
        let (Copyable::Registration { reg } | Copyable::Named { reg, .. }) = copyable;
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
        let (name, held_by) = match copyable {
            Copyable::Registration { reg } => {
                let full =
                    prose::attach::prepend(tool.description.as_deref().unwrap_or(""), &alias);
                return self.add_python_alias(tool, reg, &new, &full);
            }
            Copyable::Named { name, held_by, .. } => (name, held_by),
        };
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let region = &text[reg.bytes.0..reg.bytes.1];
        let copy = match held_by {
            None => {
                let mut cuts = vec![(name.bytes, js_string(&new))];
                if let Some(d) = s.description.as_ref().filter(|d| contains(reg, &d.span)) {
                    cuts.extend(self.copied_description(d, &alias)?);
                }
                cut(&text, reg, cuts)
            }
            Some(holder) => match s
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
                None => self.derived_copy(tool, reg, region, holder, &new, &alias),
            },
        };
        self.insert_beside(&text, reg, &copy)?;
        if held_by.is_some()
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

    /// The registration `region` (of `reg`) with the `holder` it names replaced by a copy
    /// derived inline, named `new` and described with the `alias` sentence first: the
    /// definition is declared in another module, where no copy of it can be declared.
    fn derived_copy(
        &mut self,
        tool: &Tool,
        reg: &Span,
        region: &str,
        holder: &str,
        new: &str,
        alias: &str,
    ) -> String {
        let description_js = match &tool.sites.description {
            Some(d) if d.text.is_some() => {
                let full = prose::attach::prepend(d.text.as_deref().unwrap_or(""), alias);
                let like = match &d.form {
                    DescriptionForm::Constant {
                        declared_at: Some(decl),
                        ..
                    } => decl.as_ref(),
                    _ => d,
                };
                retext::literal_like(&mut self.e, self.root, like, &full)
            }
            _ => js_string(alias),
        };
        let full = prose::attach::prepend(tool.description.as_deref().unwrap_or(""), alias);
        dialect_of(&reg.file).derived_copy(region, holder, new, &full, &description_js)
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

    /// Routes calls for `new` to the handler of `tool`, beside its own name.
    pub(super) fn route(&mut self, tool: &Tool, new: &str) -> Result<(), MutateError> {
        self.python_guards(tool, |names| {
            let mut out = names.to_vec();
            out.push(new.to_string());
            out
        })?;
        for d in &tool.sites.routes {
            let text = self.e.text(self.root, &d.site.file)?.to_string();
            match d.kind {
                RouteKind::Case => {
                    dialect_of(&d.site.file).route_case(&mut self.e, self.root, d, &text, new)?;
                }
                RouteKind::Compare => {
                    let compare = &text[d.site.bytes.0..d.site.bytes.1];
                    let (a, b) = (
                        d.label.bytes.0 - d.site.bytes.0,
                        d.label.bytes.1 - d.site.bytes.0,
                    );
                    let other = format!("{}{}{}", &compare[..a], js_string(new), &compare[b..]);
                    let either = dialect_of(&d.site.file).either(compare, &other);
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
}
