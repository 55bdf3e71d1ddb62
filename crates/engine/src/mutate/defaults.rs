//! Required status and defaults of zod parameters, which zod checks and fills in before the
//! handler runs: a demotion (P13), a required parameter made optional by a `.default(value)`, so
//! that a call without it answers as a call that sends the value; a promotion (P13), an
//! `.optional()` parameter made required, so that a call without it is refused; and a changed
//! default (`other`), an optional parameter's `.default(old)` made `.default(new)`, or the
//! default its description states (`false` for a boolean no words give one) declared in its
//! chain. Defaults
//! only where one means something by itself: an enum member, a number, a boolean (a path or a
//! query has no value that could stand for every call).

use super::MutateError;
use super::dialect::dialect_of;
use super::splice::{Edits, js_string};
use mcpevol_core::inventory::{Param, ParamSite, Span, Tool};
use std::path::Path;

/// The zod parameters of `tool` with their sites: only zod hands the handler a declared default.
fn zod_params(tool: &Tool) -> Result<impl Iterator<Item = (&ParamSite, &Param)>, &'static str> {
    let schema =
        (tool.sites.schema.as_ref()).ok_or("its input schema is not written out literally")?;
    if schema.json || schema.python.is_some() {
        return Err(
            "a default in a JSON schema or a Python signature is not what the handler gets",
        );
    }
    Ok(schema
        .params
        .iter()
        .filter(|s| s.base.is_some())
        .filter_map(|s| Some((s, tool.params.iter().find(|p| p.name == s.name)?))))
}

/// A required zod parameter of `tool` that can be given a default, with the default as a JS
/// literal: the enum's first member, the number's lower bound (else 1), `false`.
pub(super) fn demotable(tool: &Tool) -> Result<(&ParamSite, String), &'static str> {
    for (site, param) in zod_params(tool)?.filter(|(_, p)| p.required) {
        if let Some(value) = default_for(param.ty.as_deref(), &param.shape) {
            return Ok((site, value));
        }
    }
    Err("no required enum, number or boolean parameter written in zod")
}

/// An `.optional()` zod parameter of `tool` that can be made required: a plain value (not an
/// object, whose chain holds its keys' own `.optional()`), whose words do not say it may be
/// left out.
pub(super) fn promotable(tool: &Tool) -> Result<&ParamSite, &'static str> {
    if says_optional(tool.description.as_deref()) {
        return Err("its description says what happens when a parameter is left out");
    }
    for (site, param) in zod_params(tool)?.filter(|(_, p)| !p.required) {
        if promotable_param(param) {
            return Ok(site);
        }
    }
    Err("no plain `.optional()` zod parameter whose description allows it to be required")
}

/// Whether an optional parameter can be made required, in any schema: a plain value (not an
/// object, whose keys have their own), with no default (a default is what the handler gets
/// without it; dropping it is another change), whose words do not say it may be left out.
pub(super) fn promotable_param(param: &Param) -> bool {
    let plain = matches!(
        param.ty.as_deref(),
        Some("string" | "number" | "integer" | "boolean" | "enum")
    );
    let bare = param.shape.default.is_none() && param.shape.keys.is_empty();
    plain && bare && !says_optional(param.description.as_deref())
}

/// Whether words say what happens when a parameter is left out: then it may not be required.
pub(super) fn says_optional(words: Option<&str>) -> bool {
    let d = words.unwrap_or("").to_lowercase();
    [
        "optional",
        "omit",
        "leave",
        "default",
        "if not",
        "not provided",
        "not given",
        "unless",
        "if no",
        "when no",
        "blank",
        "empty",
    ]
    .iter()
    .any(|w| d.contains(w))
}

/// Takes the `.optional()` out of the parameter's zod chain.
pub(super) fn promote(e: &mut Edits, root: &Path, site: &ParamSite) -> Result<(), MutateError> {
    let (start, end) = site.value.bytes;
    let text = e.text(root, &site.value.file)?;
    const OPTIONAL: &str = ".optional()";
    let mut found = text[start..end].match_indices(OPTIONAL).map(|(at, _)| at);
    let (Some(at), None) = (found.next(), found.next()) else {
        return Err(MutateError::NotOneOptional {
            param: site.name.clone(),
        });
    };
    replace_in_chain(e, root, site, (at, at + OPTIONAL.len()), "")
}

/// Replaces `range` (bytes into the parameter's zod chain) with `new`.
fn replace_in_chain(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    (a, b): (usize, usize),
    new: &str,
) -> Result<(), MutateError> {
    let start = site.value.bytes.0;
    let span = Span {
        bytes: (start + a, start + b),
        ..site.value.clone()
    };
    e.replace(root, &span, new)
}

/// The default a maintainer would give a parameter of this type and shape, as a JS literal.
pub(super) fn default_for(
    ty: Option<&str>,
    shape: &mcpevol_core::inventory::ParamShape,
) -> Option<String> {
    let numeric = matches!(ty, Some("number" | "integer"));
    if let Some(first) = shape.values.first() {
        // Members are kept without their quotes; a `z.enum` of "1" and "2" still takes strings.
        return Some(if numeric && first.parse::<f64>().is_ok() {
            first.clone()
        } else {
            js_string(first)
        });
    }
    match ty? {
        "boolean" => Some("false".into()),
        "number" | "integer" => {
            let min = shape.min.as_deref().and_then(|m| m.parse::<f64>().ok());
            let max = shape.max.as_deref().and_then(|m| m.parse::<f64>().ok());
            let n = min.unwrap_or(1.0).min(max.unwrap_or(f64::MAX));
            Some(if n.fract() == 0.0 {
                format!("{}", n as i64)
            } else {
                n.to_string()
            })
        }
        _ => None,
    }
}

/// An optional zod parameter of `tool` whose `.default(...)` can be given another value, with
/// the new one as a JS literal: the enum's next member, the boolean's negation, a number
/// doubled (else halved, else one more or less) within its bounds. Not where a description
/// states the current default: it would be wrong afterwards.
pub(super) fn redefaultable(tool: &Tool) -> Result<(&ParamSite, String), &'static str> {
    for (site, param) in zod_params(tool)?.filter(|(_, p)| !p.required) {
        let Some(old) = param.shape.default.as_deref() else {
            continue;
        };
        let stated = |d: Option<&str>| d.is_some_and(|d| states(d, old));
        if stated(param.description.as_deref()) || stated(tool.description.as_deref()) {
            continue;
        }
        if let Some(new) = other_default(param.ty.as_deref(), &param.shape, old) {
            return Ok((site, new));
        }
    }
    // Else a default its description states, declared where the schema has none: what
    // maintainers do when they move "(default 10)" from the words into the schema. Zod then
    // hands the handler the value where it got nothing, so the previous calls, sent without
    // it, show whether the words (or the `false` below) were true.
    for (site, param) in zod_params(tool)?.filter(|(_, p)| !p.required) {
        if let Some(value) = declarable(tool, param) {
            return Ok((site, value));
        }
    }
    Err("no optional enum, number or boolean zod parameter with a default to change or declare")
}

/// The default to declare for an optional parameter that declares none: the one its
/// description states, or, for a boolean whose words give none (and whose tool's words say
/// nothing of defaults), `false`, what a handler's test of it reads when it is left out.
fn declarable(tool: &Tool, param: &Param) -> Option<String> {
    if param.required || param.shape.default.is_some() {
        return None;
    }
    let tool_words = tool.description.as_deref().unwrap_or("").to_lowercase();
    let words = param.description.as_deref().unwrap_or("");
    if words.to_lowercase().contains("default") {
        stated_default(words).and_then(|v| literal(param.ty.as_deref(), &param.shape, v))
    } else if param.ty.as_deref() == Some("boolean") && !tool_words.contains("default") {
        Some("false".to_string())
    } else {
        None
    }
}

/// An optional parameter of a JSON schema written in JavaScript that declares no default, with
/// the default to declare (as [`declarable`] says). The SDK hands the handler nothing for a
/// JSON schema's default, so declaring one claims the handler already reads a call without it
/// as one with it: the oracle's call without it must answer as a call with it
/// (`Check::Defaulted`), where a zod default only has the previous calls to answer as before.
pub(super) fn json_declarable(tool: &Tool) -> Option<(&ParamSite, String)> {
    let schema = tool.sites.schema.as_ref()?;
    let declares = dialect_of(&schema.object.file).declares_json_defaults();
    if !schema.json || schema.python.is_some() || !declares {
        return None;
    }
    schema.params.iter().find_map(|site| {
        let param = tool.params.iter().find(|p| p.name == site.name)?;
        Some((site, declarable(tool, param)?))
    })
}

/// The value a description says a parameter takes when left out: the word after "default",
/// "default:", "default is", "defaults to" or "default value", quotes stripped.
fn stated_default(description: &str) -> Option<&str> {
    let lower = description.to_lowercase();
    let at = lower.find("default")?;
    let rest = &description[at + "default".len()..];
    let rest = rest.strip_prefix('s').unwrap_or(rest);
    let word = rest
        .split(|c: char| c.is_whitespace() || c == ':' || c == '=')
        .find(|w| !["", "is", "to", "value", "of"].contains(&w.to_lowercase().as_str()))?;
    let word = word.trim_start_matches(['"', '\'', '`', '(']);
    let end = word
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-'))
        .unwrap_or(word.len());
    Some(word[..end].trim_end_matches('.')).filter(|w| !w.is_empty())
}

/// `word` as a JS literal of the parameter's type, when the parameter accepts it: a member of
/// its enum, a number within its bounds, `true` or `false`.
fn literal(
    ty: Option<&str>,
    shape: &mcpevol_core::inventory::ParamShape,
    word: &str,
) -> Option<String> {
    if !shape.values.is_empty() {
        let member = shape.values.iter().find(|v| v.as_str() == word)?;
        // A string enum's member is written quoted (`default: "npm"`, not a name `npm`); a
        // number's or a boolean's as it is.
        let bare = match ty {
            Some("number" | "integer" | "boolean") => true,
            Some(_) => false,
            None => member.parse::<f64>().is_ok() || ["true", "false"].contains(&member.as_str()),
        };
        return Some(if bare {
            member.clone()
        } else {
            js_string(member)
        });
    }
    match ty? {
        "boolean" => ["true", "false"].contains(&word).then(|| word.to_string()),
        "number" | "integer" => {
            let n: f64 = word.parse().ok()?;
            let bound = |b: &Option<String>| b.as_deref().and_then(|m| m.parse::<f64>().ok());
            let fits = bound(&shape.min).is_none_or(|m| n >= m)
                && bound(&shape.max).is_none_or(|m| n <= m)
                && (!(shape.integer || ty == Some("integer")) || n.fract() == 0.0);
            fits.then(|| word.to_string())
        }
        _ => None,
    }
}

/// Writes `value` over the argument of the parameter's `.default(...)`, or, where its chain
/// has none, declares it (see [`redefaultable`]).
pub(super) fn redefault(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    value: &str,
) -> Result<(), MutateError> {
    let (start, end) = site.value.bytes;
    let text = e.text(root, &site.value.file)?;
    if !text[start..end].contains(".default(") {
        return demote(e, root, site, value);
    }
    let range =
        default_argument(&text[start..end]).ok_or_else(|| MutateError::DefaultNotLiteral {
            param: site.name.clone(),
        })?;
    replace_in_chain(e, root, site, range, value)
}

/// Whether a description mentions the value `old` as a word of its own.
fn states(description: &str, old: &str) -> bool {
    description
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '_' || c == '-'))
        .any(|w| w.trim_end_matches('.') == old)
}

/// Another default of the same type and shape as `old`, as a JS literal.
fn other_default(
    ty: Option<&str>,
    shape: &mcpevol_core::inventory::ParamShape,
    old: &str,
) -> Option<String> {
    if shape.values.len() >= 2 {
        let at = shape.values.iter().position(|v| v == old)?;
        let next = &shape.values[(at + 1) % shape.values.len()];
        return Some(if ty == Some("enum") {
            js_string(next)
        } else {
            next.clone()
        });
    }
    match ty? {
        "boolean" => match old {
            "true" => Some("false".into()),
            "false" => Some("true".into()),
            _ => None,
        },
        "number" | "integer" => {
            let n: f64 = old.parse().ok()?;
            let min = shape.min.as_deref().and_then(|m| m.parse::<f64>().ok());
            let max = shape.max.as_deref().and_then(|m| m.parse::<f64>().ok());
            let whole = n.fract() == 0.0;
            let fits = |v: f64| {
                v != n
                    && min.is_none_or(|m| v >= m)
                    && max.is_none_or(|m| v <= m)
                    && (!whole || v.fract() == 0.0)
                    && v > 0.0
            };
            let v = [n * 2.0, (n / 2.0).floor(), n + 1.0, n - 1.0]
                .into_iter()
                .find(|v| fits(*v))?;
            Some(if whole {
                format!("{}", v as i64)
            } else {
                v.to_string()
            })
        }
        _ => None,
    }
}

/// Where the argument of the one `.default(...)` of a zod chain lies, when it is a plain
/// literal: a number, `true`/`false`, or a quoted string without escapes.
fn default_argument(chain: &str) -> Option<(usize, usize)> {
    let mut found = chain.match_indices(".default(");
    let (at, call) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let open = at + call.len();
    let rest = &chain[open..];
    let lead = rest.len() - rest.trim_start().len();
    let arg = &rest[lead..];
    let len = match arg.chars().next()? {
        q @ ('"' | '\'' | '`') => {
            let close = arg[1..].find(q)?;
            if arg[1..=close].contains('\\') || (q == '`' && arg[1..=close].contains("${")) {
                return None;
            }
            close + 2
        }
        _ => arg
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
            .unwrap_or(arg.len()),
    };
    if len == 0 || !arg[len..].trim_start().starts_with(')') {
        return None;
    }
    Some((open + lead, open + lead + len))
}

/// Writes `.default(value)` into the parameter's zod chain: before its `.describe(...)` where
/// that call ends the chain, so that the description stays on the outermost schema (what zod's
/// JSON Schema reads), else at its end. Before a `.describe(...)` that other calls follow, it
/// broke them: `z.number().default(0).describe(..).min(0)` throws at load (a default has no
/// `min`), and the server never started.
pub(super) fn demote(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    value: &str,
) -> Result<(), MutateError> {
    let (start, end) = site.value.bytes;
    let text = e.text(root, &site.value.file)?;
    let chain = &text[start..end];
    let at = match &site.description {
        Some(d) if d.span.file == site.value.file && (start..end).contains(&d.span.bytes.0) => {
            let closes_chain = text
                .get(d.span.bytes.1..end)
                .is_some_and(|rest| rest.trim() == ")");
            chain[..d.span.bytes.0 - start]
                .rfind(".describe(")
                .filter(|_| closes_chain)
                .map_or(end, |i| start + i)
        }
        _ => end,
    };
    e.insert(root, &site.value.file, at, format!(".default({value})"))
}

#[cfg(test)]
#[path = "defaults_tests.rs"]
mod tests;
