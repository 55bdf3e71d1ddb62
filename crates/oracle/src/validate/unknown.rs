//! How a server answers a tool it does not have, learned from calls of names no server has,
//! so that a listed tool answering the same way (an alias missing from the name guard, a
//! rename whose branch was left behind) is caught by shape, not by words, whatever it answered
//! before. An empty result counts as a shape too, where the server gives it for unknown names.

use super::normalize::normalize;
use crate::server::session::{CallStatus, Outcome};

/// Names no server has, in the spellings tool names come in: the server's answers to them are
/// its "unknown tool" answer.
pub const PROBE_TOOLS: [&str; 3] = [
    "mcpevol_probe_no_such_tool",
    "mcpevolProbeMissingTool",
    "mcpevol-probe-unknown",
];

/// Stands for the called name in an "unknown tool" answer, so that answers for different
/// names compare equal.
const NAME_HOLE: &str = "{name}";
/// Characters of an "unknown tool" error that must match: some servers append the list of
/// tools they do know, which a round changes.
const UNKNOWN_PREFIX: usize = 40;

/// How the server answers a call of a tool it does not have.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnknownShape {
    pub status: CallStatus,
    /// The answers' texts, normalised, with the called name as a hole: one when the probes
    /// agree, each of them when they do not.
    pub texts: Vec<String>,
    /// The answer is a success with nothing in it: then any listed tool answering a success
    /// with nothing in it answers like an unknown one.
    pub empty: bool,
}

/// Whether an answer is a success that holds nothing (no text, no other content).
pub fn is_empty(outcome: &Outcome) -> bool {
    outcome.status == CallStatus::Ok
        && outcome.other.is_empty()
        && outcome.parts.iter().all(|p| p.trim().is_empty())
}

fn hollow(outcome: &Outcome, name: &str) -> String {
    normalize(&outcome.text.replace(name, NAME_HOLE))
}

impl UnknownShape {
    /// The shape of the probes' answers (each with the name it called); None when a probe
    /// crashed or hung, or when they disagree on status (no shape to trust).
    pub fn learn(probes: &[(&str, Outcome)]) -> Option<UnknownShape> {
        let first = &probes.first()?.1;
        let hung = |o: &Outcome| matches!(o.status, CallStatus::Crashed | CallStatus::Timeout);
        if probes
            .iter()
            .any(|(_, o)| hung(o) || o.status != first.status)
        {
            return None;
        }
        let empty = probes.iter().all(|(_, o)| is_empty(o));
        let mut texts: Vec<String> = Vec::new();
        for (name, o) in probes {
            let text = hollow(o, name);
            if !texts.contains(&text) {
                texts.push(text);
            }
        }
        // A success with words in it is an unknown-tool answer only where every probe got the
        // same words: a tool answering text to any name cannot be told from an unknown one.
        if first.status == CallStatus::Ok && !empty && texts.len() > 1 {
            return None;
        }
        Some(UnknownShape {
            status: first.status,
            texts,
            empty,
        })
    }

    /// The shape of one answer (tests, and servers probed once).
    pub fn of(outcome: &Outcome, name: &str) -> UnknownShape {
        UnknownShape {
            status: outcome.status,
            texts: vec![hollow(outcome, name)],
            empty: is_empty(outcome),
        }
    }

    /// Whether `outcome`, the answer to a call of `name`, is this server's "unknown tool".
    pub fn matches(&self, outcome: &Outcome, name: &str) -> bool {
        if outcome.status != self.status {
            return false;
        }
        if self.empty {
            return is_empty(outcome);
        }
        let other = hollow(outcome, name);
        if self.texts.contains(&other) {
            return true;
        }
        if self.status == CallStatus::Ok {
            return false; // a success matches only word for word
        }
        self.texts.iter().any(|text| {
            // "Unknown tool: {name}. Known: a, b": the words up to the name say it all.
            if let (Some(a), Some(b)) = (text.find(NAME_HOLE), other.find(NAME_HOLE)) {
                return a > 0 && text[..a] == other[..b];
            }
            let prefix = |t: &str| t.chars().take(UNKNOWN_PREFIX).collect::<String>();
            let long = |t: &str| t.chars().count() >= UNKNOWN_PREFIX;
            long(text) && long(&other) && prefix(&other) == prefix(text)
        })
    }

    /// Whether one of `calls` (tool names the server lists, with their answers) was answered
    /// this way.
    pub fn answers_like_any<'a>(
        &self,
        calls: impl IntoIterator<Item = (&'a str, Outcome)>,
    ) -> bool {
        calls.into_iter().any(|(name, o)| self.matches(&o, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: CallStatus, text: &str) -> Outcome {
        let parts = if status == CallStatus::Ok && !text.is_empty() {
            vec![text.to_string()]
        } else {
            Vec::new()
        };
        Outcome {
            status,
            text: text.into(),
            parts,
            other: Vec::new(),
        }
    }

    fn probed(status: CallStatus, mut answer: impl FnMut(&str) -> String) -> Option<UnknownShape> {
        let probes: Vec<(&str, Outcome)> = PROBE_TOOLS
            .iter()
            .map(|n| (*n, outcome(status, &answer(n))))
            .collect();
        UnknownShape::learn(&probes)
    }

    #[test]
    fn an_unknown_tool_is_recognised_by_the_shape_of_the_probe_answers() {
        let shape = probed(CallStatus::ToolError, |n| {
            format!("Unknown tool: {n}. Known: a, b")
        })
        .unwrap();
        assert_eq!(
            shape.texts.len(),
            1,
            "the probes agree once the name is a hole"
        );
        assert!(shape.matches(
            &outcome(CallStatus::ToolError, "Unknown tool: old_name. Known: a, c"),
            "old_name"
        ));
        // A tool's own "not found" answer is not the server's unknown-tool answer.
        assert!(!shape.matches(
            &outcome(CallStatus::ToolError, "Port-forward with id test not found"),
            "port_forward_stop"
        ));
        assert!(!shape.matches(
            &outcome(CallStatus::RpcError, "Unknown tool: old_name. Known: a, c"),
            "old_name"
        ));
    }

    #[test]
    fn an_empty_success_is_an_unknown_tool_where_the_server_gives_it_to_unknown_names() {
        let shape = probed(CallStatus::Ok, |_| String::new()).unwrap();
        assert!(shape.empty);
        // The alias missing from the server's name guard answers `{"content": []}`.
        assert!(shape.matches(&outcome(CallStatus::Ok, ""), "forecast_alias"));
        assert!(!shape.matches(&outcome(CallStatus::Ok, "Paris: 14C"), "forecast_alias"));
        assert!(!shape.matches(&outcome(CallStatus::ToolError, ""), "forecast_alias"));
    }

    #[test]
    fn a_success_with_words_is_a_shape_only_when_every_probe_got_the_same_words() {
        let same = probed(CallStatus::Ok, |_| "no such tool".into()).unwrap();
        assert!(same.matches(&outcome(CallStatus::Ok, "no such tool"), "x"));
        assert!(!same.matches(&outcome(CallStatus::Ok, "no such tool, try y"), "x"));
        let echoed = probed(CallStatus::Ok, |n| format!("{n}{n}"));
        assert!(echoed.is_some(), "the name as a hole makes them agree");
        let random = {
            let mut k = 0;
            probed(CallStatus::Ok, move |_| {
                k += 1;
                format!("answer {k}")
            })
        };
        assert!(random.is_none(), "disagreeing successes are no shape");
    }

    #[test]
    fn probes_that_crash_or_disagree_on_status_give_no_shape() {
        let probes = vec![
            (PROBE_TOOLS[0], outcome(CallStatus::ToolError, "unknown")),
            (PROBE_TOOLS[1], outcome(CallStatus::Crashed, "closed")),
        ];
        assert!(UnknownShape::learn(&probes).is_none());
        let probes = vec![
            (PROBE_TOOLS[0], outcome(CallStatus::ToolError, "unknown")),
            (PROBE_TOOLS[1], outcome(CallStatus::RpcError, "unknown")),
        ];
        assert!(UnknownShape::learn(&probes).is_none());
    }
}
