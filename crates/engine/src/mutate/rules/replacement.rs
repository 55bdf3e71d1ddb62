//! Tool Replacement: a tool renamed where it is defined and wherever calls are routed by its
//! name, its description saying what it was called. Real renames give a clearer verb
//! (`execute_command` to `start_process`, `search_code` to `start_search`): the rules swap the
//! name's first verb for another a maintainer would choose, and only a name with no verb they
//! know goes to its next version (`x` becomes `x_v2`, `x_v2` becomes `x_v3`).

use super::super::prose::Note;
use super::super::python;
use super::super::splice::js_string;
use super::super::words;
use super::super::{Aliases, MutateError};
use super::copies::made_by_rules;
use super::{Draft, describable};
use mcpevol_core::inventory::{DescriptionSite, Span, Tool};

/// What Tool Replacement found: where the name is written, and the description that says
/// the old name (where it can be rewritten).
pub(super) struct Replacement<'t> {
    name: Named<'t>,
    description: Option<&'t DescriptionSite>,
}

/// Where a tool's name is given.
enum Named<'t> {
    /// Written as a string in its definition.
    Written(&'t Span),
    /// A Python function registered without `name=`: the registration is given one.
    ByRegistration(&'t Span),
}

pub(super) fn check<'t>(
    tool: &'t Tool,
    all: &[Tool],
    aliases: Aliases,
) -> Result<Replacement<'t>, &'static str> {
    let s = &tool.sites;
    let name = match (&s.name, &s.registration) {
        (Some(name), _) => Named::Written(name),
        (None, Some(reg)) if python::names_by_registration(tool) => Named::ByRegistration(reg),
        (None, _) => return Err("its name is not written in its definition"),
    };
    if made_by_rules(&tool.name) {
        return Err("its name is one the rules give a copy: its replacement would be `x_alias_v2`");
    }
    // Real releases rename for a clearer word or a convention, never to `x_v2`: that name is
    // left to a round that asks for Tool Replacement by name.
    if aliases == Aliases::Refused && clearer_verb(&tool.name, all).is_none() {
        return Err(
            "no word of its name has a clearer one the rules know, and a release does not rename it to `x_v2`",
        );
    }
    Ok(Replacement {
        name,
        description: describable(tool).ok(),
    })
}

/// Verbs of tool names and the verb a rename gives instead. No chain comes back to a verb it
/// left: a tool renamed twice never gets its first name back.
const VERBS: &[(&str, &str)] = &[
    ("read", "get"),
    ("show", "get"),
    ("list", "get"),
    ("get", "fetch"),
    ("fetch", "retrieve"),
    ("lookup", "find"),
    ("find", "search"),
    ("search", "query"),
    ("query", "retrieve"),
    ("download", "fetch"),
    ("add", "create"),
    ("make", "create"),
    ("generate", "create"),
    ("remove", "delete"),
    ("edit", "update"),
    ("set", "update"),
    ("run", "execute"),
    ("start", "launch"),
    ("send", "post"),
    ("describe", "inspect"),
    ("analyze", "inspect"),
    ("check", "verify"),
    ("validate", "verify"),
    ("write", "save"),
    ("open", "load"),
    ("scan", "inspect"),
    ("parse", "extract"),
    ("convert", "transform"),
    ("calculate", "compute"),
    ("update", "modify"),
    ("take", "capture"),
    ("toggle", "switch"),
    ("recommend", "suggest"),
    ("handle", "process"),
    ("debug", "diagnose"),
    ("poll", "check"),
    ("approve", "accept"),
    ("evaluate", "assess"),
    ("call", "invoke"),
];

/// `name` with its first verb [`VERBS`] knows swapped for the other, in the name's own case
/// (`getRecipeById`: `fetchRecipeById`), where no tool of `all` has that name.
fn clearer_verb(name: &str, all: &[Tool]) -> Option<String> {
    words::word_spans(name).into_iter().find_map(|(a, b)| {
        let word = &name[a..b];
        let (_, to) = VERBS
            .iter()
            .find(|(from, _)| word.eq_ignore_ascii_case(from))?;
        let spelled = if word.chars().all(|c| c.is_ascii_uppercase()) {
            to.to_ascii_uppercase()
        } else if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            words::capitalized(to)
        } else {
            to.to_string()
        };
        let new = format!("{}{spelled}{}", &name[..a], &name[b..]);
        (!all.iter().any(|t| t.name == new)).then_some(new)
    })
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

#[cfg(test)]
#[test]
fn a_rename_swaps_the_first_known_verb_in_the_names_case() {
    assert_eq!(
        clearer_verb("get_forecast", &[]).as_deref(),
        Some("fetch_forecast")
    );
    assert_eq!(
        clearer_verb("mcp_howtocook_getRecipeById", &[]).as_deref(),
        Some("mcp_howtocook_fetchRecipeById")
    );
    assert_eq!(
        clearer_verb("search-docs", &[]).as_deref(),
        Some("query-docs")
    );
    assert_eq!(
        clearer_verb("query-analytics-dashboard", &[]).as_deref(),
        Some("retrieve-analytics-dashboard")
    );
    // Renamed again and again, from any verb, a name never comes back.
    for (verb, _) in VERBS {
        let mut name = format!("{verb}_note");
        let mut seen = vec![name.clone()];
        while let Some(next) = clearer_verb(&name, &[]) {
            assert!(!seen.contains(&next), "{seen:?} then {next}");
            seen.push(next.clone());
            name = next;
        }
    }
    assert_eq!(clearer_verb("current_time", &[]), None);
}

#[cfg(test)]
#[test]
fn a_release_renames_only_for_a_clearer_verb_and_a_round_may_raise_a_version() {
    let tool = |name: &str| {
        let span = Span {
            file: "index.js".into(),
            start_line: 1,
            end_line: 1,
            bytes: (0, 4),
        };
        let mut t: Tool = serde_json::from_value(serde_json::json!({
            "name": name, "style": "register", "handler": null, "description": null, "params": [],
            "definition": { "file": "index.js", "start_line": 1, "end_line": 1, "bytes": [0, 4] },
        }))
        .unwrap();
        t.sites.name = Some(span);
        t
    };
    let plain = tool("mobile_clipboard");
    assert!(check(&plain, &[], Aliases::Refused).is_err());
    assert!(check(&plain, &[], Aliases::Allowed).is_ok());
    let verbed = tool("mobile_take_screenshot");
    assert!(check(&verbed, &[], Aliases::Refused).is_ok());
    assert_eq!(
        clearer_verb("mobile_take_screenshot", &[]).as_deref(),
        Some("mobile_capture_screenshot")
    );
}

impl Draft<'_> {
    pub(super) fn replacement(
        &mut self,
        plan: Replacement,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let name = &tool.name;
        let new = clearer_verb(name, all).unwrap_or_else(|| next_version(name));
        self.rename(&plan.name, tool, &new)?;
        if let Some(description) = plan.description {
            let note = self.writer().note(&Note::Formerly { old: name });
            self.add_sentences(description, &[note])?;
        }
        self.added.push(new.clone());
        Ok(format!("Tool Replacement: `{name}` is replaced by `{new}`"))
    }

    /// Renames a tool where it is defined and wherever calls are routed by its name.
    fn rename(&mut self, named: &Named, tool: &Tool, new: &str) -> Result<(), MutateError> {
        let name = match *named {
            Named::Written(name) => name,
            Named::ByRegistration(reg) => {
                // A Python function registered without `name=`: it is named now.
                return python::add_keyword(
                    &mut self.e,
                    self.root,
                    reg,
                    "name",
                    &python::string(new),
                );
            }
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
}
