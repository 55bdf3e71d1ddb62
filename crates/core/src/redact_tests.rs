use super::*;

fn kinds(text: &str) -> Vec<Kind> {
    redact(text).1.into_keys().collect()
}

#[test]
fn each_provider_format_is_replaced_and_named() {
    let cases = [
        (
            "key sk-proj-4fGh7Jk9LmNo2PqRsTuVwXyZ01234567",
            Kind::OpenaiKey,
        ),
        (
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx0123",
            Kind::AnthropicKey,
        ),
        ("AKIAIOSFODNN7EXAMPLE is the id", Kind::AwsAccessKey),
        (
            "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            Kind::GithubToken,
        ),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            Kind::GithubToken,
        ),
        ("glpat-abcdefghij0123456789", Kind::GitlabToken),
        ("xoxb-123456789012-abcdefGHIJ", Kind::SlackToken),
        (
            "AIzaSyA-1234567890abcdefghijklmnopqrstu",
            Kind::GoogleApiKey,
        ),
        ("sk_live_0123456789abcdefABCD", Kind::StripeKey),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", Kind::NpmToken),
        (
            "hf_abcdefghijklmnopqrstuvwxyz01234567",
            Kind::HuggingfaceToken,
        ),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            Kind::Jwt,
        ),
    ];
    for (text, kind) in cases {
        let (out, found) = redact(text);
        assert_eq!(found.keys().copied().collect::<Vec<_>>(), [kind], "{text}");
        assert!(
            out.contains(&format!("[redacted:{}]", kind.label())),
            "{out}"
        );
    }
}

#[test]
fn a_private_key_block_is_replaced_whole_even_when_cut_off() {
    let block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----";
    let text = format!("read: {block} done");
    let (out, found) = redact(&text);
    assert_eq!(out, "read: [redacted:private-key] done");
    assert_eq!(found[&Kind::PrivateKey], 1);
    let (out, _) = redact("head -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA");
    assert_eq!(out, "head [redacted:private-key]");
}

#[test]
fn a_random_token_next_to_a_secret_word_is_replaced_and_the_word_kept() {
    let (out, found) = redact(r#"{"api_key": "q8Zr3LmX0pT7vW2yK5bN9cF4"}"#);
    assert_eq!(out, r#"{"api_key": "[redacted:secret]"}"#);
    assert_eq!(found[&Kind::NamedSecret], 1);
    let (out, _) = redact("Authorization: Bearer 7fA9kQ2mZx4LpR8tW1vN3cY6");
    assert_eq!(out, "Authorization: Bearer [redacted:secret]");
    let (out, _) = redact("the password is Xk29fPq8ZmL4tR7wN1vB");
    assert_eq!(out, "the password is [redacted:secret]");
}

#[test]
fn words_names_paths_and_hashes_without_a_secret_word_are_left_alone() {
    for text in [
        "Set GITHUB_PERSONAL_ACCESS_TOKEN to use the API",
        "token: YOUR_API_TOKEN_GOES_HERE",
        "Returns the page_token of the next page: nextPageTokenForResults",
        "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "see /usr/lib/node_modules/@modelcontextprotocol/sdk/dist/index.js",
        "sk-learn is a library; desk-top and task-runner are words",
        "Get the forecast for a city. Use list_cities to see which cities have forecasts.",
        "uuid 123e4567-e89b-12d3-a456-426614174000",
    ] {
        assert_eq!(kinds(text), [], "{text}");
        assert_eq!(redact(text).0, text);
    }
}

#[test]
fn counts_add_up_per_place_and_kind() {
    let mut into = Vec::new();
    let (_, found) = redact(
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 and ghp_zBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    );
    tally(&mut into, Place::Prompt, &found);
    tally(&mut into, Place::Prompt, &found);
    tally(&mut into, Place::Records, &found);
    assert_eq!(
        into,
        [
            Redacted {
                place: Place::Prompt,
                kind: Kind::GithubToken,
                count: 4
            },
            Redacted {
                place: Place::Records,
                kind: Kind::GithubToken,
                count: 2
            }
        ]
    );
}
