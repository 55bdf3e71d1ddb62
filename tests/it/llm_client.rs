//! The LLM client against the STUB endpoint of `common/stub.rs` (no real LLM is reachable from
//! the test machines): replies, retries, timeouts, bad replies, and where the API key goes.

use std::time::{Duration, Instant};

use crate::common::chat::{KEY, assert_no_key, client, config, messages};
use crate::common::stub::{Scripted, StubServer, words_of_messages};
use mcpevol::llm::{Chat, ChatMessage, LlmClient, LlmConfig, LlmError, MAX_REPLY_CHARS};

#[tokio::test]
async fn a_plain_reply_comes_back_with_its_usage_model_and_one_attempt() {
    let stub = StubServer::start(vec![Scripted::reply("hello there world")]);
    let exchange = client(&stub).chat(&messages()).await.unwrap();
    assert_eq!(exchange.reply, "hello there world");
    assert_eq!(exchange.model, "stub-model");
    assert_eq!(exchange.request, messages());
    assert_eq!(exchange.attempts, 1);
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    let prompt = words_of_messages(&requests[0].body);
    assert_eq!(exchange.usage.prompt_tokens, prompt);
    assert_eq!(exchange.usage.completion_tokens, 3);
    assert_eq!(exchange.usage.total_tokens, prompt + 3);
}

#[tokio::test]
async fn the_request_is_a_chat_completion_with_model_temperature_and_messages() {
    let stub = StubServer::start(vec![Scripted::reply("ok")]);
    client(&stub).chat(&messages()).await.unwrap();
    let request = &stub.requests()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("content-type"), Some("application/json"));
    let body = request.json();
    assert_eq!(body["model"], "stub-model");
    assert!(
        (body["temperature"].as_f64().unwrap() - 0.2).abs() < 1e-6,
        "{body}"
    );
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], "You edit MCP servers.");
    assert_eq!(body["messages"][1]["role"], "user");
    assert_eq!(
        body["messages"][1]["content"],
        "Rename the tool get_forecast."
    );
    assert!(body.get("stream").is_none_or(|s| s == false), "{body}");
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_is_waited_out_and_counts_two_attempts() {
    let stub = StubServer::start(vec![Scripted::rate_limited(1), Scripted::reply("done")]);
    let start = Instant::now();
    let exchange = client(&stub).chat(&messages()).await.unwrap();
    assert_eq!(exchange.reply, "done");
    assert_eq!(exchange.attempts, 2);
    assert_eq!(stub.requests().len(), 2);
    assert!(
        start.elapsed() >= Duration::from_millis(950),
        "Retry-After: 1 was not honoured"
    );
}

#[tokio::test]
async fn two_server_errors_are_retried_before_the_reply() {
    let stub = StubServer::start(vec![
        Scripted::status(500),
        Scripted::status(503),
        Scripted::reply("third time"),
    ]);
    let exchange = client(&stub).chat(&messages()).await.unwrap();
    assert_eq!(exchange.reply, "third time");
    assert_eq!(exchange.attempts, 3);
    assert_eq!(stub.requests().len(), 3);
}

#[tokio::test]
async fn server_errors_stop_being_retried_after_max_retries() {
    let stub = StubServer::start(vec![Scripted::status(500); 5]);
    let config = LlmConfig {
        max_retries: 1,
        ..config(&stub)
    };
    let error = LlmClient::new(config)
        .unwrap()
        .chat(&messages())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            LlmError::Status {
                status: 500,
                attempts: 2,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(stub.requests().len(), 2);
    let text = error.to_string();
    assert!(
        text.contains("HTTP 500") && text.contains("2 attempt"),
        "{text}"
    );
}

#[tokio::test]
async fn a_bad_request_fails_at_once_naming_the_status_and_the_host() {
    let stub = StubServer::start(vec![Scripted::status(400), Scripted::reply("never sent")]);
    let error = client(&stub).chat(&messages()).await.unwrap_err();
    assert!(
        matches!(
            error,
            LlmError::Status {
                status: 400,
                attempts: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(stub.requests().len(), 1, "a 400 must not be retried");
    let text = error.to_string();
    let host = stub
        .base_url
        .trim_start_matches("http://")
        .trim_end_matches("/v1");
    assert!(text.contains("HTTP 400") && text.contains(host), "{text}");
    assert!(
        text.contains("stub: scripted status 400"),
        "the server's message is kept: {text}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_fails_naming_the_timeout_without_retrying() {
    let stub = StubServer::start(vec![Scripted::Delay(Duration::from_secs(30))]);
    let config = LlmConfig {
        timeout: Duration::from_secs(1),
        ..config(&stub)
    };
    let start = Instant::now();
    let error = LlmClient::new(config)
        .unwrap()
        .chat(&messages())
        .await
        .unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        matches!(error, LlmError::Timeout { attempts: 1, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("within 1 s"), "{error}");
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn an_unreachable_endpoint_is_retried_then_reported_as_a_connection_error() {
    // Port 1, where nothing listens: a port bound and freed here could be taken at once by
    // another test's stub, whose scripted replies this client would then eat (seen: both
    // tests failed together).
    let config = LlmConfig {
        base_url: "http://127.0.0.1:1/v1".to_string(),
        api_key: Some(KEY.into()),
        max_retries: 1,
        ..LlmConfig::default()
    };
    let error = LlmClient::new(config)
        .unwrap()
        .chat(&messages())
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::Connect { attempts: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("127.0.0.1:1"), "{error}");
}

#[tokio::test]
async fn an_empty_content_is_an_empty_reply_error() {
    let stub = StubServer::start(vec![Scripted::reply(""), Scripted::reply("  \n ")]);
    let client = client(&stub);
    for _ in 0..2 {
        let error = client.chat(&messages()).await.unwrap_err();
        assert!(matches!(error, LlmError::EmptyReply { .. }), "{error:?}");
    }
}

#[tokio::test]
async fn an_empty_body_is_a_bad_reply_error() {
    let stub = StubServer::start(vec![Scripted::EmptyBody]);
    let error = client(&stub).chat(&messages()).await.unwrap_err();
    assert!(matches!(error, LlmError::BadReply { .. }), "{error:?}");
    assert!(error.to_string().contains("empty body"), "{error}");
}

#[tokio::test]
async fn a_huge_content_is_too_long() {
    let stub = StubServer::start(vec![Scripted::huge(MAX_REPLY_CHARS + 1)]);
    let error = client(&stub).chat(&messages()).await.unwrap_err();
    assert!(
        matches!(error, LlmError::TooLong { chars } if chars == MAX_REPLY_CHARS + 1),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_key_is_sent_as_a_bearer_header_and_nowhere_else() {
    let stub = StubServer::start(vec![Scripted::reply("ok")]);
    let exchange = client(&stub).chat(&messages()).await.unwrap();
    let request = &stub.requests()[0];
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    for (name, value) in &request.headers {
        assert!(
            name == "authorization" || !value.contains(KEY),
            "the key is in header {name}"
        );
    }
    assert!(!request.path.contains(KEY) && !request.body.contains(KEY));
    assert!(
        !serde_json::to_string(&exchange).unwrap().contains(KEY),
        "the key is in the record"
    );
    assert!(
        !format!("{:?}", client(&stub)).contains(KEY),
        "the key is in the client's Debug"
    );
}

#[tokio::test]
async fn without_a_key_no_authorization_header_is_sent() {
    let stub = StubServer::start(vec![Scripted::reply("ok")]);
    let config = LlmConfig {
        api_key: None,
        ..config(&stub)
    };
    LlmClient::new(config)
        .unwrap()
        .chat(&messages())
        .await
        .unwrap();
    assert_eq!(stub.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn the_key_never_appears_in_errors_whatever_the_failure() {
    let stub = StubServer::start(vec![
        Scripted::error(401, format!("Incorrect API key provided: {KEY}")),
        Scripted::status(400),
        Scripted::status(500),
        Scripted::status(500),
        Scripted::Delay(Duration::from_secs(30)),
        Scripted::reply(""),
        Scripted::EmptyBody,
        Scripted::huge(MAX_REPLY_CHARS + 1),
    ]);
    let config = LlmConfig {
        timeout: Duration::from_secs(1),
        max_retries: 1,
        ..config(&stub)
    };
    let client = LlmClient::new(config).unwrap();
    let mut errors = Vec::new();
    for _ in 0..7 {
        errors.push(client.chat(&messages()).await.unwrap_err());
    }
    let unreachable = LlmConfig {
        base_url: "http://127.0.0.1:1/v1".into(),
        max_retries: 0,
        ..client.config().clone()
    };
    errors.push(
        LlmClient::new(unreachable)
            .unwrap()
            .chat(&messages())
            .await
            .unwrap_err(),
    );
    let bad_key = LlmConfig {
        api_key: Some(format!("{KEY}\n")),
        ..client.config().clone()
    };
    errors.push(LlmClient::new(bad_key).unwrap_err());
    let kinds: Vec<String> = errors
        .iter()
        .map(|e| {
            format!("{e:?}")
                .split([' ', '{', '('])
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "Status",
            "Status",
            "Status",
            "Timeout",
            "EmptyReply",
            "BadReply",
            "TooLong",
            "Connect",
            "Config"
        ],
        "{errors:#?}"
    );
    assert!(
        errors[0].to_string().contains("<redacted>"),
        "{}",
        errors[0]
    );
    errors.iter().for_each(assert_no_key);
}

#[tokio::test]
async fn the_client_serves_as_a_dyn_chat() {
    let stub = StubServer::start(vec![Scripted::reply("via the trait")]);
    let client = client(&stub);
    let chat: &dyn Chat = &client;
    assert_eq!(chat.chat(&messages()).await.unwrap().reply, "via the trait");
}

#[tokio::test]
async fn an_unknown_role_is_refused_before_anything_is_sent() {
    let stub = StubServer::start(vec![Scripted::reply("never")]);
    let odd = vec![ChatMessage {
        role: "tool".into(),
        content: "x".into(),
    }];
    let error = client(&stub).chat(&odd).await.unwrap_err();
    assert!(matches!(error, LlmError::Request(_)), "{error:?}");
    assert!(stub.requests().is_empty());
}
