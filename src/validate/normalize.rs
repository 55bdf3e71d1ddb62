//! Tool outputs with their volatile parts (timestamps, ids, temporary paths, durations) replaced
//! by placeholders, so that two runs of an unchanged tool compare equal.
//!
//! Two ways: [`normalize`] replaces every value of a volatile shape, for messages and for
//! comparing two answers of one session; [`Volatile`] is learned from the two answers the
//! previous version gave to the same call, and replaces only what varied between them, plus
//! clock readings close to now and durations, so that a changed count, size or id behind a
//! shape of the first kind is still seen.

use std::collections::BTreeSet;
use std::sync::LazyLock;
use std::time::{SystemTime, UNIX_EPOCH};

use regex::{Captures, Regex};

/// What a shape of volatile value is: a reading of the clock (replaced when it reads close to
/// now, whether or not it varied), a duration (always replaced: an uptime or an elapsed time
/// often reads the same in the two baseline runs and differs later), or anything else
/// (replaced only where it varied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    DateTime,
    TimeOfDay,
    Epoch,
    Duration,
    Other,
}

/// Each pattern with the placeholder it becomes and its shape, applied in order: longer shapes
/// first, so that a timestamp is not half-eaten by the number rule.
static RULES: LazyLock<Vec<(Regex, &'static str, Shape)>> = LazyLock::new(|| {
    [
        // ISO 8601 / RFC 3339 date-times, with or without zone and fraction.
        (
            r"(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "<time>",
            Shape::DateTime,
        ),
        // RFC 2822 / Date.toString() shapes: "Tue, 01 Dec 2026 10:00:00 GMT", "Tue Dec 01 2026 10:00:00 GMT+0000 (...)".
        (
            r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (\d{1,2} )?[A-Z][a-z]{2} (\d{1,2} )?\d{4} (\d{2}):(\d{2}):(\d{2})( [A-Z]{2,4}([+-]\d{4})?( \([^)]*\))?)?",
            "<time>",
            Shape::TimeOfDay,
        ),
        // Locale times: "10:00:00 AM", "10:00:00".
        (
            r"\b\d{1,2}:(\d{2}):(\d{2})( ?[AP]M)?\b",
            "<time>",
            Shape::TimeOfDay,
        ),
        (
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "<uuid>",
            Shape::Other,
        ),
        // Temporary folders (the `{tmp}` of a launch, mkdtemp names).
        (r"(/private)?/(tmp|var/folders)/[^\s'\x22,;)\]}]*", "<tmp>", Shape::Other),
        // Durations: "12ms", "1.5 s", "300 µs".
        (
            r"\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|seconds|milliseconds)\b",
            "<duration>",
            Shape::Duration,
        ),
        // Epoch milliseconds or seconds, long hex ids, random base-36 ids.
        (r"\b1[5-9]\d{8}(\d{3})?\b", "<epoch>", Shape::Epoch),
        (r"(?i)\b[0-9a-f]{16,}\b", "<hex>", Shape::Other),
        (r"\b[a-z0-9]{20,}\b", "<id>", Shape::Other),
    ]
    .into_iter()
    .map(|(p, with, shape)| {
        (
            Regex::new(p).expect("the patterns above compile"),
            with,
            shape,
        )
    })
    .collect()
});

/// `text` with every volatile value replaced, and line endings and trailing spaces made
/// uniform.
pub fn normalize(text: &str) -> String {
    let mut out = text.replace("\r\n", "\n");
    for (re, with, _) in RULES.iter() {
        if re.is_match(&out) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    tidy(&out)
}

fn tidy(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which values of an answer are volatile, learned from two answers to the same call: each is
/// a rule and the index of its match (in the text as the earlier rules left it). A rule whose
/// matches do not pair up (a different count in the two answers) is volatile everywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Volatile {
    at: BTreeSet<(usize, usize)>,
    everywhere: BTreeSet<usize>,
}

impl Volatile {
    /// What varies between `a` and `b`, two answers to the same call.
    pub fn learn(a: &str, b: &str) -> Volatile {
        let mut learned = Volatile::default();
        let (mut a, mut b) = (a.replace("\r\n", "\n"), b.replace("\r\n", "\n"));
        let now = now_secs();
        for (rule, (re, _, _)) in RULES.iter().enumerate() {
            let left: Vec<&str> = re.find_iter(&a).map(|m| m.as_str()).collect();
            let right: Vec<&str> = re.find_iter(&b).map(|m| m.as_str()).collect();
            if left.len() != right.len() {
                learned.everywhere.insert(rule);
            } else {
                for (i, (x, y)) in left.iter().zip(&right).enumerate() {
                    if x != y {
                        learned.at.insert((rule, i));
                    }
                }
            }
            a = learned.apply_rule(rule, &a, now);
            b = learned.apply_rule(rule, &b, now);
        }
        learned
    }

    /// `text` with the values this answer's call varies in, and clock readings close to now,
    /// replaced.
    pub fn normalize(&self, text: &str) -> String {
        let now = now_secs();
        let mut out = text.replace("\r\n", "\n");
        for rule in 0..RULES.len() {
            out = self.apply_rule(rule, &out, now);
        }
        tidy(&out)
    }

    fn apply_rule(&self, rule: usize, text: &str, now: u64) -> String {
        let (re, with, shape) = &RULES[rule];
        if !re.is_match(text) {
            return text.to_string();
        }
        let mut index = 0;
        re.replace_all(text, |c: &Captures| {
            let i = index;
            index += 1;
            let varied = self.everywhere.contains(&rule) || self.at.contains(&(rule, i));
            if varied || reads_now(*shape, c, now) {
                with.to_string()
            } else {
                c[0].to_string()
            }
        })
        .into_owned()
    }
}

/// How far a clock reading may be from now and still count as one: a day for dates (time
/// zones), a quarter of an hour for minutes and seconds of the hour (a round takes a while).
const DAY_SECS: i64 = 86_400 * 2;
const HOUR_SLACK_SECS: i64 = 15 * 60;

/// Whether a match of `shape` reads the clock close to `now` (seconds since the epoch).
fn reads_now(shape: Shape, c: &Captures, now: u64) -> bool {
    let now = now as i64;
    let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<i64>().ok());
    match shape {
        Shape::Other => false,
        Shape::Duration => true,
        Shape::DateTime => match (num(1), num(2), num(3)) {
            (Some(y), Some(m), Some(d)) => {
                let date = (i32::try_from(y).ok())
                    .and_then(|y| chrono::NaiveDate::from_ymd_opt(y, m as u32, d as u32));
                date.is_some_and(|date| {
                    let midnight = date.and_time(chrono::NaiveTime::MIN).and_utc();
                    (midnight.timestamp() - now).abs() <= DAY_SECS
                })
            }
            _ => true,
        },
        Shape::TimeOfDay => {
            let n = c.len();
            // The minutes and seconds are the last two numeric captures before the suffix.
            let pairs: Vec<i64> = (1..n).filter_map(num).collect();
            let [.., mm, ss] = pairs[..] else {
                return true;
            };
            let read = mm * 60 + ss;
            let wall = now.rem_euclid(3600);
            let off = (read - wall).rem_euclid(3600);
            off.min(3600 - off) <= HOUR_SLACK_SECS
        }
        Shape::Epoch => {
            let v: i64 = c[0].parse().unwrap_or(0);
            let secs = if c[0].len() > 10 { v / 1000 } else { v };
            (secs - now).abs() <= DAY_SECS
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
