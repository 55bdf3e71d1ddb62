//! A claimed answer checked against the reference's: the reference tool called just before and
//! after the claimed call, and the claimed answer compared with the reference's reworked as the
//! claim says (cut, repeated for a batch, projected to some keys).

use serde_json::{Map, Value};

use super::judge::{self, Judged, hard_failure, quote};
use super::volatile::{Volatile, tidy};
use super::{Compared, Oracle, effect};
use crate::server::session::{CallStatus, Outcome};

impl Oracle<'_> {
    /// A claim that `tool` on `arguments` answers as `reference` on `plain`, each text part
    /// cut by `cut`. The reference is called just before and just after in the same session,
    /// so that state the calls change cannot pass for a broken claim: where both reference
    /// answers agree, the claimed answer must equal them cut; where they differ, each part
    /// must still `fit`.
    // Long: the two reference calls, the claimed call and their comparison belong together: split, the reason for a failure would lose what it compares.
    pub(super) async fn claimed(
        &mut self,
        reference: &str,
        plain: &Map<String, Value>,
        tool: &str,
        arguments: &Map<String, Value>,
        rework: Rework<'_>,
    ) -> (Outcome, Judged) {
        let Rework {
            cut,
            fits,
            times,
            read,
            reworked,
        } = rework;
        let before = self.call(reference, plain).await;
        let outcome = self.call(tool, arguments).await;
        let after = self.call(reference, plain).await;
        if let Some(f) = hard_failure(&outcome, tool, self.unknown()) {
            return (outcome, f);
        }
        if self
            .unknown()
            .is_some_and(|u| u.matches(&before, reference))
        {
            let judged = Judged::unverifiable(format!(
                "`{reference}` itself answers as the server answers a tool it does not have"
            ));
            return (outcome, judged);
        }
        if before.status != CallStatus::Ok {
            let judged = match outcome.status {
                status if judge::is_protocol_error(status) && before.status != status => {
                    Judged::failed(format!(
                        "a protocol error where `{reference}` answered {:?}: {}",
                        before.status,
                        quote(&outcome.text)
                    ))
                }
                _ => Judged::unverifiable(format!(
                    "`{reference}` itself answered {:?}: {}",
                    before.status,
                    quote(&before.text)
                )),
            };
            return (outcome, judged);
        }
        if outcome.status != CallStatus::Ok {
            let judged = Judged::failed(format!(
                "it answered {:?} where `{reference}` succeeded: {}",
                outcome.status,
                quote(&outcome.text)
            ));
            return (outcome, judged);
        }
        if let Some(part) = outcome.parts.iter().find(|p| !fits(p)) {
            let judged = Judged::failed(format!(
                "a part of the answer is not{reworked} as claimed: {}",
                quote(part)
            ));
            return (outcome, judged);
        }
        let rework = |o: &Outcome| -> Vec<String> { o.parts.iter().map(|p| cut(p)).collect() };
        let first = rework(&before);
        let mut after = after;
        let mut probes = 0;
        loop {
            // What varies in the reference's answers, learned from its two calls, part by part
            // and reworked as the claim says; where most of a part varies, only its status can
            // be compared (which proves nothing).
            let second = rework(&after);
            let learned: Vec<Volatile> = (first.iter().zip(&second))
                .map(|(x, y)| Volatile::learn(x, y))
                .collect();
            let steady = after.status == CallStatus::Ok
                && first.len() == second.len()
                && learned.iter().all(|v| v.hole_share() <= 0.5);
            // Where the reference's answers changed between its calls but not in their number
            // of parts, a batch still answers that number `times` over.
            let parts = before.parts.len();
            if !steady
                && times > 1
                && after.parts.len() == parts
                && outcome.parts.len() != times * parts
            {
                let judged = Judged::failed(format!(
                    "it answered {} parts where {times} answers of `{reference}` have {}",
                    outcome.parts.len(),
                    times * parts
                ));
                return (outcome, judged);
            }
            if !steady {
                return (outcome, Judged::passed(Some(Compared::CallStatus)));
            }
            // A batch of `times` identical argument sets answers the reference's parts `times`
            // over.
            let expected: Vec<String> = (0..times)
                .flat_map(|_| learned.iter().map(Volatile::reference))
                .collect();
            let now: Vec<String> = (outcome.parts.iter().enumerate())
                .map(|(i, p)| match learned.len() {
                    0 => tidy(&read(p)),
                    n => learned[i % n].normalize(&read(p)),
                })
                .collect();
            if now == expected {
                return (outcome, Judged::passed(Some(Compared::Output)));
            }
            // Two alike answers do not make a steady tool: a die rolls the same number twice
            // one time in six. Before a difference fails the claim, the reference is asked
            // again; an answer unlike the first shows what varies, and the claim is judged anew.
            let mut unlike = None;
            while unlike.is_none() && probes < PROBES {
                probes += 1;
                let again = self.call(reference, plain).await;
                if again.status == CallStatus::Ok && rework(&again) != first {
                    unlike = Some(again);
                }
            }
            if let Some(again) = unlike {
                after = again;
                continue;
            }
            let difference = judge::first_difference(&expected.join("\n"), &now.join("\n"));
            let judged = Judged::failed(match times {
                1 => {
                    format!(
                        "the answer is not `{reference}`'s answer{reworked} as claimed: {difference}"
                    )
                }
                _ => format!(
                    "the answer is not `{reference}`'s answers to the {times} argument sets, in order: {difference}"
                ),
            });
            return (outcome, judged);
        }
    }
}

/// How many more times the reference is called, where its two answers agreed but the claimed
/// answer differs from them, to tell a tool whose answers vary from a broken claim.
const PROBES: usize = 4;

/// How a claimed answer follows from the reference's: each part reworked by `cut` (where the
/// reference changed between its two calls, each claimed part must still `fit`), the parts
/// `times` over (a batch of that many identical argument sets), and each claimed part `read`
/// before the comparison (JSON written compactly, where a projection rewrote it).
pub(super) struct Rework<'f> {
    pub(super) cut: Box<dyn Fn(&str) -> String + 'f>,
    pub(super) fits: Box<dyn Fn(&str) -> bool + 'f>,
    pub(super) times: usize,
    pub(super) read: Box<dyn Fn(&str) -> String + 'f>,
    /// How the reference's answer is reworked, in a failure's words (" cut"; "" for as it is:
    /// a new enum value's answer said "cut as claimed" where nothing was cut).
    pub(super) reworked: &'static str,
}

impl<'f> Rework<'f> {
    /// The reference's answer as it is.
    pub(super) fn same() -> Rework<'f> {
        Rework {
            cut: Box::new(str::to_string),
            fits: Box::new(|_| true),
            times: 1,
            read: Box::new(str::to_string),
            reworked: "",
        }
    }

    pub(super) fn cut(
        cut: impl Fn(&str) -> String + 'f,
        fits: impl Fn(&str) -> bool + 'f,
    ) -> Rework<'f> {
        Rework {
            cut: Box::new(cut),
            fits: Box::new(fits),
            reworked: " cut",
            ..Rework::same()
        }
    }

    /// The reference's JSON in `layout`: each claimed part must hold the same JSON, laid out
    /// so (where the reference changed between calls, just laid out so).
    pub(super) fn reformat(layout: effect::Layout) -> Rework<'f> {
        Rework {
            cut: Box::new(move |t| effect::laid_out(t, Some(layout))),
            fits: Box::new(move |t| {
                !effect::filled_json(t) || effect::Layout::of(t) == Some(layout)
            }),
            read: Box::new(|t| effect::laid_out(t, effect::Layout::of(t))),
            reworked: " laid out",
            ..Rework::same()
        }
    }

    /// The reference's text with only the lines that contain `query` (see
    /// [`effect::lines_with`]).
    pub(super) fn search(query: String) -> Rework<'f> {
        Rework {
            cut: Box::new(move |t| effect::lines_with(t, &query)),
            reworked: " searched",
            ..Rework::same()
        }
    }

    /// The reference's JSON with only `keys` kept.
    pub(super) fn project(keys: Vec<String>) -> Rework<'f> {
        let kept = keys.clone();
        Rework {
            cut: Box::new(move |t| effect::projected(t, &keys).unwrap_or_else(|| t.to_string())),
            fits: Box::new(move |t| effect::keeps_only(t, &kept)),
            read: Box::new(effect::compact_json),
            reworked: " cut",
            ..Rework::same()
        }
    }
}
