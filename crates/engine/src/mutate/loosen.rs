//! A looser bound (P8, as real releases raise a limit): a parameter's upper bound written as a
//! number in its own zod chain (`.max(n)`) or its JSON-schema property (`maximum`, `maxLength`,
//! `maxItems`) raised to twice its value. Only where no description states the old number (it
//! would go on stating a limit that no longer holds), and only the bound of the parameter
//! itself, not one of its items or keys. The oracle then sends a value beyond the old bound:
//! a handler that still refuses it shows the looser bound untrue.

use super::MutateError;
use super::splice::Edits;
use mcpevol_core::inventory::{ParamSite, Span, Tool};
use std::path::Path;

/// The bound a loosening raises: the old value and the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loosening {
    pub old: u64,
    pub new: u64,
}

/// A parameter of `tool` whose own upper bound can be loosened, with the loosening (whether
/// the number is written where it can be raised is seen when it is written).
pub(super) fn loosenable(tool: &Tool) -> Result<(&ParamSite, Loosening), &'static str> {
    let schema =
        (tool.sites.schema.as_ref()).ok_or("its input schema is not written out literally")?;
    if schema.python.is_some() {
        return Err("a bound in a Python signature is not loosened");
    }
    for site in &schema.params {
        let Some(param) = tool.params.iter().find(|p| p.name == site.name) else {
            continue;
        };
        let Some(old) = param
            .shape
            .max
            .as_deref()
            .and_then(|m| m.parse::<u64>().ok())
        else {
            continue;
        };
        let stated = |d: Option<&str>| d.is_some_and(|d| states_number(d, old));
        if old == 0 || stated(tool.description.as_deref()) || stated(param.description.as_deref()) {
            continue;
        }
        let new = old.saturating_mul(2);
        return Ok((site, Loosening { old, new }));
    }
    Err("no parameter with an upper bound of its own that no description states")
}

/// Writes the looser bound over the old number, which must be the value's own bound.
pub(super) fn loosen(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    json: bool,
    l: Loosening,
) -> Result<(), MutateError> {
    let (start, end) = site.value.bytes;
    let text = e.text(root, &site.value.file)?;
    let at =
        own_bound(&text[start..end], json, l.old).ok_or_else(|| MutateError::NotApplicable {
            operator: mcpevol_core::operators::Builtin::ConstraintMutation.into(),
            why: format!(
                "the bound {} of `{}` is not written as a number of its own",
                l.old, site.name
            ),
        })?;
    let span = Span {
        bytes: (start + at.0, start + at.1),
        ..site.value.clone()
    };
    e.replace(root, &span, l.new.to_string())
}

/// Where the one bound of the value itself holds `old`: `.max(old)` at the top of a zod chain,
/// or `maximum`/`maxLength`/`maxItems: old` among a JSON-schema property's own keys (`json`).
fn own_bound(text: &str, json: bool, old: u64) -> Option<(usize, usize)> {
    let pattern = if json {
        r"\b(?:maximum|maxLength|maxItems)\s*:\s*(\d+)\b"
    } else {
        r"\.max\(\s*(\d+)\s*\)"
    };
    let re = regex::Regex::new(pattern).expect("a valid pattern");
    let top = if json { 1 } else { 0 };
    let found: Vec<(usize, usize)> = re
        .captures_iter(text)
        .filter(|c| depth(&text[..c.get(0).expect("whole match").start()]) == top)
        .filter_map(|c| {
            let n = c.get(1)?;
            (n.as_str().parse::<u64>().ok()? == old).then_some((n.start(), n.end()))
        })
        .collect();
    match found[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// How deep in brackets the end of `text` is.
fn depth(text: &str) -> i32 {
    text.chars().fold(0, |d, c| match c {
        '(' | '{' | '[' => d + 1,
        ')' | '}' | ']' => d - 1,
        _ => d,
    })
}

/// Whether `text` states the number `n` as a word of its own.
fn states_number(text: &str, n: u64) -> bool {
    regex::Regex::new(&format!(r"(^|[^\d.]){n}($|[^\d])"))
        .expect("a valid pattern")
        .is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bound_of_the_value_itself_is_found() {
        let zod = "z.array(z.string().max(20)).max(5).describe(\"Up to 5 names\")";
        let at = own_bound(zod, false, 5).unwrap();
        assert_eq!(&zod[at.0..at.1], "5");
        assert_eq!(own_bound("z.array(z.string().max(20))", false, 20), None);
        let json = "{ type: \"array\", items: { type: \"string\", maxLength: 9 }, maxItems: 9 }";
        let at = own_bound(json, true, 9).unwrap();
        assert_eq!(&json[at.0 - "maxItems: ".len()..at.1], "maxItems: 9");
    }

    #[test]
    fn a_number_counts_as_stated_only_as_a_word_of_its_own() {
        assert!(states_number("At most 50 results.", 50));
        assert!(!states_number("Returns 150 rows or 5.0 pages", 50));
    }
}
