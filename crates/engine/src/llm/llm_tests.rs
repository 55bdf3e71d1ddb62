//! Unit tests of the LLM module that need no endpoint: configuration, backoff, replay.
//! The client against a stub endpoint is tested in `tests/it/llm_client.rs`.

use std::collections::HashMap;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};

use super::retry::{backoff, retry_after, shorten};
use super::*;

const KEY: &str = "sk-test-SECRET-123";

fn exchange(request: Vec<ChatMessage>, reply: &str) -> Exchange {
    Exchange {
        request,
        reply: reply.into(),
        model: "gpt-4o-mini-2024-07-18".into(),
        usage: Usage {
            prompt_tokens: 10,
            completion_tokens: 2,
            total_tokens: 12,
        },
        elapsed_ms: 5,
        attempts: 1,
    }
}

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| vars.get(name).cloned()
}

#[test]
fn config_defaults_to_gpt_4o_mini_at_openai_without_a_key() {
    let config = LlmConfig::from_vars(None, None, env(&[]));
    assert_eq!(config.model, "gpt-4o-mini");
    assert_eq!(config.base_url, "https://api.openai.com/v1");
    assert_eq!(config.api_key, None);
    assert_eq!(config.temperature, 0.2);
    assert_eq!(config.timeout, Duration::from_secs(120));
    assert_eq!(config.max_retries, 4);
}

#[test]
fn config_flags_win_over_the_environment_and_the_key_comes_from_it() {
    let vars = env(&[
        (ENV_BASE_URL, "http://env:1/v1"),
        (ENV_API_KEY, " sk-from-env\n"),
    ]);
    let config = LlmConfig::from_vars(Some("m".into()), Some("http://flag:2/v1".into()), &vars);
    assert_eq!(
        (config.model.as_str(), config.base_url.as_str()),
        ("m", "http://flag:2/v1")
    );
    assert_eq!(config.api_key.as_deref(), Some("sk-from-env"));
    assert_eq!(
        LlmConfig::from_vars(None, None, &vars).base_url,
        "http://env:1/v1"
    );
}

#[test]
fn config_treats_empty_variables_and_flags_as_unset() {
    let vars = env(&[(ENV_BASE_URL, ""), (ENV_API_KEY, "  ")]);
    let config = LlmConfig::from_vars(Some(String::new()), None, vars);
    assert_eq!(config.model, DEFAULT_MODEL);
    assert_eq!(config.base_url, DEFAULT_BASE_URL);
    assert_eq!(config.api_key, None);
}

#[test]
fn config_debug_redacts_the_key() {
    let config = LlmConfig {
        api_key: Some(KEY.into()),
        ..LlmConfig::default()
    };
    let text = format!("{config:?} {config:#?}");
    assert!(!text.contains(KEY) && text.contains("<redacted>"), "{text}");
}

#[test]
fn a_client_refuses_a_base_url_that_is_not_http() {
    for url in ["not a url", "ftp://host/v1", "file:///tmp"] {
        let config = LlmConfig {
            base_url: url.into(),
            ..LlmConfig::default()
        };
        let error = LlmClient::new(config).unwrap_err();
        assert!(matches!(error, LlmError::Config(_)), "{url}: {error:?}");
    }
}

#[test]
fn a_client_refuses_a_key_a_header_cannot_carry_without_quoting_it() {
    for key in [
        format!("{KEY}\n"),
        format!("sk test {KEY}"),
        format!("{KEY}é"),
        String::new(),
    ] {
        let config = LlmConfig {
            api_key: Some(key),
            ..LlmConfig::default()
        };
        let error = LlmClient::new(config).unwrap_err();
        let text = format!("{error} {error:?}");
        assert!(
            matches!(error, LlmError::Config(_)) && !text.contains("SECRET"),
            "{text}"
        );
    }
}

#[test]
fn a_client_refuses_an_out_of_range_temperature_and_a_zero_timeout() {
    let hot = LlmConfig {
        temperature: 3.0,
        ..LlmConfig::default()
    };
    assert!(matches!(LlmClient::new(hot), Err(LlmError::Config(_))));
    let hasty = LlmConfig {
        timeout: Duration::ZERO,
        ..LlmConfig::default()
    };
    assert!(matches!(LlmClient::new(hasty), Err(LlmError::Config(_))));
}

#[test]
fn a_client_for_an_https_endpoint_builds_its_tls_on_the_installed_provider() {
    // reqwest (feature rustls-no-provider) panics at build time when no provider is installed.
    let client = LlmClient::new(LlmConfig::default()).unwrap();
    assert_eq!(client.host(), "api.openai.com");
    assert!(rustls::crypto::CryptoProvider::get_default().is_some());
}

#[test]
fn the_longest_call_is_every_attempt_at_the_timeout_and_every_wait_at_its_cap() {
    // 5 attempts of 120 s, 4 waits of at most 30 s (Retry-After's cap).
    assert_eq!(
        LlmConfig::default().max_call_time(),
        Duration::from_secs(720)
    );
    let extreme = LlmConfig {
        timeout: Duration::MAX,
        max_retries: u32::MAX,
        ..LlmConfig::default()
    };
    assert_eq!(extreme.max_call_time(), Duration::MAX);
}

#[test]
fn backoff_starts_at_half_a_second_doubles_and_is_capped() {
    assert_eq!(backoff(0), Duration::from_millis(500));
    assert_eq!(backoff(1), Duration::from_secs(1));
    assert_eq!(backoff(2), Duration::from_secs(2));
    assert_eq!(backoff(10), MAX_BACKOFF);
    assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
}

#[test]
fn retry_after_reads_seconds_or_milliseconds_and_is_capped() {
    let headers = |pairs: &[(&'static str, &'static str)]| {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    };
    assert_eq!(
        retry_after(&headers(&[("retry-after", "1")])),
        Some(Duration::from_secs(1))
    );
    assert_eq!(
        retry_after(&headers(&[("retry-after-ms", "250"), ("retry-after", "9")])),
        Some(Duration::from_millis(250))
    );
    assert_eq!(
        retry_after(&headers(&[("retry-after", "3600")])),
        Some(MAX_RETRY_AFTER)
    );
    assert_eq!(
        retry_after(&headers(&[(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT"
        )])),
        None
    );
    assert_eq!(retry_after(&headers(&[("retry-after", "-1")])), None);
    assert_eq!(retry_after(&HeaderMap::new()), None);
}

#[test]
fn shorten_cuts_on_a_character_boundary() {
    assert_eq!(shorten("ééé", 2), "éé…");
    assert_eq!(shorten("abc", 3), "abc");
}

#[test]
fn an_exchange_round_trips_through_json() {
    let original = exchange(vec![ChatMessage::user("hi")], "hello");
    let text = serde_json::to_string(&original).unwrap();
    assert_eq!(serde_json::from_str::<Exchange>(&text).unwrap(), original);
}

#[tokio::test]
async fn replay_returns_the_recorded_exchanges_in_order_then_reports_exhaustion() {
    let first = vec![ChatMessage::system("s"), ChatMessage::user("one")];
    let second = vec![ChatMessage::system("s"), ChatMessage::user("two")];
    let replay = Replay::new([exchange(first.clone(), "1"), exchange(second.clone(), "2")]);
    let chat: &dyn Chat = &replay;
    assert_eq!(
        chat.chat(&first).await.unwrap(),
        exchange(first.clone(), "1")
    );
    assert_eq!(chat.chat(&second).await.unwrap().reply, "2");
    assert_eq!(replay.remaining(), 0);
    let error = chat.chat(&first).await.unwrap_err();
    assert!(
        matches!(error, LlmError::ReplayExhausted { recorded: 2 }),
        "{error:?}"
    );
}

#[test]
fn replay_reports_a_mismatch_with_its_index_and_first_differing_line() {
    let recorded = vec![
        ChatMessage::system("rules"),
        ChatMessage::user("edit\nget_forecast\nplease"),
    ];
    let replay = Replay::new([
        exchange(recorded.clone(), "1"),
        exchange(recorded.clone(), "2"),
    ]);
    replay.next(&recorded).unwrap();
    let asked = vec![
        ChatMessage::system("rules"),
        ChatMessage::user("edit\nlist_cities\nplease"),
    ];
    let error = replay.next(&asked).unwrap_err();
    match &error {
        LlmError::ReplayMismatch {
            index,
            expected_first_line,
            got_first_line,
        } => {
            assert_eq!(
                (
                    *index,
                    expected_first_line.as_str(),
                    got_first_line.as_str()
                ),
                (1, "get_forecast", "list_cities")
            );
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    assert_eq!(
        replay.remaining(),
        1,
        "a mismatch does not use up the recorded exchange"
    );
    assert!(error.to_string().contains("exchange 1"), "{error}");
}

#[test]
fn replay_compares_the_whole_message_list() {
    let recorded = vec![ChatMessage::user("a")];
    let replay = Replay::new([exchange(recorded, "1")]);
    let longer = vec![ChatMessage::user("a"), ChatMessage::assistant("b")];
    match replay.next(&longer).unwrap_err() {
        LlmError::ReplayMismatch {
            expected_first_line,
            got_first_line,
            ..
        } => {
            assert_eq!(
                (expected_first_line.as_str(), got_first_line.as_str()),
                ("<end of request>", "[2 assistant]")
            );
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    let trailing_newline = vec![ChatMessage::user("a\n")];
    assert!(matches!(
        replay.next(&trailing_newline),
        Err(LlmError::ReplayMismatch { .. })
    ));
    let other_role = vec![ChatMessage::system("a")];
    assert!(matches!(
        replay.next(&other_role),
        Err(LlmError::ReplayMismatch { .. })
    ));
}
