//! Names of new parameters: per kind of effect, the name the server already gives that concept
//! on another tool, else one drawn by weight from `data/param-names.toml`, spelled in the
//! server's case. (One fixed name per kind made two in three added parameters `max_chars`;
//! real releases used 141 names for 310.)

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::Rng;
use super::behaviours::ParamKind;
use mcpevol_core::inventory::Tool;
use mcpevol_core::words::{self, Case};

const SHIPPED: &str = include_str!("../../../../data/param-names.toml");

/// Weighted names per kind, as the data file lists them.
type Table = BTreeMap<String, BTreeMap<String, u32>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| toml::from_str(SHIPPED).expect("data/param-names.toml is well formed"))
}

/// The names of `kind` (a table of the data file), with their weights, `{noun}` filled in
/// with `noun` (names needing one are left out where there is none).
fn names(kind: &str, noun: Option<&str>) -> Vec<(String, u32)> {
    let Some(names) = table().get(kind) else {
        return Vec::new();
    };
    names
        .iter()
        .filter_map(|(name, weight)| match (name.contains("{noun}"), noun) {
            (false, _) => Some((name.clone(), *weight)),
            (true, Some(n)) => Some((name.replace("{noun}", n), *weight)),
            (true, None) => None,
        })
        .collect()
}

/// How often `kind` is drawn where several kinds fit a tool (the data file's `[kinds]`; 1
/// where it names none).
pub fn kind_weight(kind: &str) -> u32 {
    (table().get("kinds"))
        .and_then(|k| k.get(kind))
        .copied()
        .unwrap_or(1)
}

/// Whether `param` names the concept of `kind` under any of its names (`{noun}` names with
/// any noun): a tool with one such parameter has the concept already.
pub fn is_kind(kind: &str, param: &str) -> bool {
    let param = words::words(param).join("_");
    table().get(kind).is_some_and(|names| {
        names.keys().any(|name| match name.split_once("{noun}") {
            None => *name == param,
            // The noun is a plural (`max_notes`): `char_limit` is no `{noun}_limit`.
            Some((head, tail)) => {
                param.len() > head.len() + tail.len() + 1
                    && param.starts_with(head)
                    && param.ends_with(tail)
                    && param[head.len()..param.len() - tail.len()].ends_with('s')
            }
        })
    })
}

/// `text` up to its first full stop.
fn first_sentence(text: &str) -> &str {
    text.split_once(". ").map_or(text, |(first, _)| first)
}

/// The plural noun `tool`'s name ends with (`list_notes`: `notes`), if it ends with one.
fn noun(tool: &str) -> Option<String> {
    let words = words::words(tool);
    let last = words.last()?;
    (words.len() > 1 && last.len() > 3 && last.ends_with('s') && !last.ends_with("ss"))
        .then(|| last.clone())
}

/// How the server spells multi-word parameter names: the case most of them are in (snake
/// where none has several words).
fn param_case(all: &[Tool]) -> Case {
    let mut counts = [0usize; 3];
    for p in all.iter().flat_map(|t| &t.params) {
        if words::words(&p.name).len() > 1 {
            counts[match words::case_of(&p.name) {
                Case::Snake => 0,
                Case::Kebab => 1,
                Case::Camel => 2,
            }] += 1;
        }
    }
    match counts.iter().enumerate().max_by_key(|(i, n)| (**n, 3 - i)) {
        Some((2, n)) if *n > 0 => Case::Camel,
        Some((1, n)) if *n > 0 => Case::Kebab,
        _ => Case::Snake,
    }
}

/// `name` (snake case, as the data file writes it) in `case`.
fn spelled(name: &str, case: Case) -> String {
    let words = words::words(name);
    match case {
        Case::Snake => words.join("_"),
        Case::Kebab => words.join("-"),
        Case::Camel => (words.iter().enumerate())
            .map(|(i, w)| match i {
                0 => w.clone(),
                _ => words::capitalized(w),
            })
            .collect(),
    }
}

/// A name for a new parameter of `kind` on `tool`: most often the one another tool of the
/// server gives the concept, else one drawn by weight; never one `tool` has. None when every
/// name is taken.
pub fn choose(kind: &ParamKind, tool: &Tool, all: &[Tool], rng: &mut Rng) -> Option<String> {
    let free = |name: &str| !tool.params.iter().any(|p| p.name == name);
    // A parameter of the same kind the rules added before: its name, and a description of
    // this kind (a server's own `length` or `start` may mean something else entirely).
    let same_kind = |p: &mcpevol_core::inventory::Param| {
        is_kind(kind.key, &p.name)
            && p.description.as_deref().is_some_and(|d| {
                (kind.descriptions.iter()).any(|k| d.starts_with(first_sentence(k)))
            })
    };
    // Servers keep their names (one release added `timeformat` to 15 tools), but not always:
    // one in four draws afresh, as releases by other hands do.
    let keeps = rng.below(4) != 0;
    let convention = all
        .iter()
        .filter(|t| t.name != tool.name && keeps)
        .flat_map(|t| &t.params)
        .find(|p| same_kind(p) && free(&p.name))
        .map(|p| p.name.as_str());
    if let Some(name) = convention {
        return Some(name.to_string());
    }
    let case = param_case(all);
    let options: Vec<(String, u32)> = names(kind.key, noun(&tool.name).as_deref())
        .into_iter()
        .map(|(name, w)| (spelled(&name, case), w))
        .filter(|(name, _)| free(name))
        .collect();
    let total: u32 = options.iter().map(|(_, w)| w).sum();
    if total == 0 {
        return None;
    }
    let mut at = rng.below(total as usize) as u32;
    for (name, w) in options {
        if at < w {
            return Some(name);
        }
        at -= w;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_the_data_file_has_names() {
        for kind in ["chars", "lines", "skip", "keys", "layout"] {
            assert!(names(kind, None).len() >= 4, "{kind}");
        }
    }

    #[test]
    fn a_cut_by_characters_which_fits_nearly_every_tool_is_drawn_less_often_than_the_other_kinds() {
        for kind in ["lines", "skip", "keys", "layout"] {
            assert!(kind_weight("chars") < kind_weight(kind), "{kind}");
        }
    }

    #[test]
    fn a_noun_name_is_read_as_its_kind_and_names_are_spelled_in_the_servers_case() {
        assert!(is_kind("lines", "max_notes"));
        assert!(is_kind("lines", "maxResults"));
        assert!(!is_kind("lines", "max_"));
        assert!(!is_kind("lines", "char_limit"));
        assert!(is_kind("lines", "notes_limit"));
        assert!(!is_kind("chars", "city"));
        assert_eq!(noun("list_notes").as_deref(), Some("notes"));
        assert_eq!(noun("get_address"), None);
        assert_eq!(spelled("max_length", Case::Camel), "maxLength");
        assert_eq!(spelled("max_length", Case::Kebab), "max-length");
    }
}
