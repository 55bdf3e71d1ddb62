//! Strings that look like credentials, found in what a server said (descriptions, answers,
//! errors) and replaced before the text goes into a model prompt or a record: the key formats
//! of the common providers, private-key blocks, JSON web tokens, and long random-looking tokens
//! written next to a word such as key, token or secret. A server may have been given a real key
//! (`--env`) and echo it; it may have read one. Either way it stops here, and the round says
//! how many of each kind were replaced.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// What a replaced string looked like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    PrivateKey,
    OpenaiKey,
    AnthropicKey,
    AwsAccessKey,
    GithubToken,
    GitlabToken,
    SlackToken,
    GoogleApiKey,
    StripeKey,
    NpmToken,
    HuggingfaceToken,
    Jwt,
    /// A long random-looking token next to a word that names a secret.
    NamedSecret,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::PrivateKey => "private-key",
            Kind::OpenaiKey => "openai-key",
            Kind::AnthropicKey => "anthropic-key",
            Kind::AwsAccessKey => "aws-access-key",
            Kind::GithubToken => "github-token",
            Kind::GitlabToken => "gitlab-token",
            Kind::SlackToken => "slack-token",
            Kind::GoogleApiKey => "google-api-key",
            Kind::StripeKey => "stripe-key",
            Kind::NpmToken => "npm-token",
            Kind::HuggingfaceToken => "huggingface-token",
            Kind::Jwt => "jwt",
            Kind::NamedSecret => "secret",
        }
    }
}

/// Where replaced strings were headed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    /// A message to the model.
    Prompt,
    /// The version's records (`round.json`, `tools.json`).
    Records,
}

/// How many strings of one kind were replaced on their way to one place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redacted {
    pub place: Place,
    pub kind: Kind,
    pub count: u32,
}

/// The provider formats: each pattern and its kind. Anthropic's before OpenAI's, which its
/// prefix would also match.
static FORMATS: LazyLock<Vec<(Kind, Regex)>> = LazyLock::new(|| {
    let table: &[(Kind, &str)] = &[
        (
            Kind::PrivateKey,
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.{0,8192}?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
        ),
        (Kind::AnthropicKey, r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
        (
            Kind::OpenaiKey,
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        ),
        (
            Kind::AwsAccessKey,
            r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
        ),
        (
            Kind::GithubToken,
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        (Kind::GitlabToken, r"\bglpat-[A-Za-z0-9_\-]{20,}"),
        (Kind::SlackToken, r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
        (Kind::GoogleApiKey, r"\bAIza[0-9A-Za-z_\-]{35}"),
        (
            Kind::StripeKey,
            r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
        ),
        (Kind::NpmToken, r"\bnpm_[A-Za-z0-9]{36}\b"),
        (Kind::HuggingfaceToken, r"\bhf_[A-Za-z0-9]{30,}\b"),
        (
            Kind::Jwt,
            r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        ),
    ];
    table
        .iter()
        .map(|(kind, pattern)| (*kind, Regex::new(pattern).expect("valid pattern")))
        .collect()
});

/// A word naming a secret, then up to a few characters of punctuation, then a token: the token
/// is replaced when it looks random (see [`random_looking`]).
static NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:api[_\-]?key|access[_\-]?key|secret|token|passw(?:or)?d|credential|auth(?:orization)?|bearer)[a-z_\-]*["']?\s{0,3}(?:[:=]|is|bearer)?\s{0,3}["']?(?-i)([A-Za-z0-9+/_\-.=~]{20,})"#,
    )
    .expect("valid pattern")
});

/// The shortest token a named secret may be, and how random it must look (bits per character).
const MIN_ENTROPY: f64 = 3.5;

/// `text` with every credential-looking string replaced by `[redacted:KIND]`, and how many of
/// each kind were replaced. Borrows the text when there was nothing to replace.
pub fn redact(text: &str) -> (Cow<'_, str>, BTreeMap<Kind, u32>) {
    let mut found = BTreeMap::new();
    let mut out = Cow::Borrowed(text);
    for (kind, pattern) in FORMATS.iter() {
        if !pattern.is_match(&out) {
            continue;
        }
        let mut count = 0;
        let replaced = pattern
            .replace_all(&out, |_: &regex::Captures| {
                count += 1;
                format!("[redacted:{}]", kind.label())
            })
            .into_owned();
        *found.entry(*kind).or_insert(0) += count;
        out = Cow::Owned(replaced);
    }
    if NAMED.is_match(&out) {
        let mut count = 0;
        let replaced = NAMED
            .replace_all(&out, |caps: &regex::Captures| {
                let whole = caps.get(0).expect("match");
                let token = caps.get(1).expect("group");
                if random_looking(token.as_str()) {
                    count += 1;
                    let keep = &whole.as_str()[..token.start() - whole.start()];
                    format!("{keep}[redacted:{}]", Kind::NamedSecret.label())
                } else {
                    whole.as_str().to_string()
                }
            })
            .into_owned();
        if count > 0 {
            found.insert(Kind::NamedSecret, count);
            out = Cow::Owned(replaced);
        }
    }
    (out, found)
}

/// [`redact`] of an owned text, which is kept as it is when there is nothing to replace.
pub fn redact_owned(text: String) -> (String, BTreeMap<Kind, u32>) {
    let (out, found) = redact(&text);
    match out {
        Cow::Borrowed(_) => (text, found),
        Cow::Owned(out) => (out, found),
    }
}

/// Whether a token looks like a generated secret rather than a word or a name: letters and
/// digits mixed, and characters spread out (Shannon entropy of at least [`MIN_ENTROPY`] bits).
fn random_looking(token: &str) -> bool {
    let letters = token.chars().any(|c| c.is_ascii_alphabetic());
    let digits = token.chars().filter(|c| c.is_ascii_digit()).count();
    if !letters || digits < 2 || token.starts_with("[redacted") {
        return false;
    }
    let mut counts = [0u32; 128];
    for b in token.bytes() {
        counts[(b & 0x7f) as usize] += 1;
    }
    let n = token.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum();
    entropy >= MIN_ENTROPY
}

/// Adds the counts of one redaction to a record's list.
pub fn tally(into: &mut Vec<Redacted>, place: Place, found: &BTreeMap<Kind, u32>) {
    for (kind, count) in found {
        match into
            .iter_mut()
            .find(|r| r.place == place && r.kind == *kind)
        {
            Some(entry) => entry.count += count,
            None => into.push(Redacted {
                place,
                kind: *kind,
                count: *count,
            }),
        }
    }
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
