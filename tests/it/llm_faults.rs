//! The LLM client against an endpoint that misbehaves (the STUB of `common/stub.rs`): it drops
//! the connection mid-reply or before answering, answers 500 forever, or streams a body that
//! never ends, slowly or as a flood. Each must end in a clean error naming the cause, within
//! `LlmConfig::max_call_time` (the per-request timeout, retries and their waits).

use std::time::{Duration, Instant};

use crate::common::chat::{assert_no_key, client, config, messages};
use crate::common::stub::{Scripted, StubServer};
use mcpevol::llm::{
    DEFAULT_MAX_RETRIES, LlmClient, LlmConfig, LlmError, MAX_BACKOFF, MAX_BODY_BYTES, RETRY_BASE,
};

async fn fails(stub: &StubServer, config: LlmConfig) -> (LlmError, Duration) {
    let start = Instant::now();
    let error = LlmClient::new(config.clone())
        .unwrap()
        .chat(&messages())
        .await
        .unwrap_err();
    let elapsed = start.elapsed();
    assert!(elapsed <= config.max_call_time(), "took {elapsed:?}");
    assert_no_key(&error);
    assert!(!stub.requests().is_empty());
    (error, elapsed)
}

#[tokio::test]
async fn a_reply_cut_off_mid_body_is_retried_and_the_next_reply_is_used() {
    let stub = StubServer::start(vec![
        Scripted::CutReply("the first try".into()),
        Scripted::reply("the second try"),
    ]);
    let exchange = client(&stub).chat(&messages()).await.unwrap();
    assert_eq!(exchange.reply, "the second try");
    assert_eq!(exchange.attempts, 2);
}

/// The error of a client with two retries whose every request is answered by `fault`: an
/// HTTP error after three attempts.
async fn fails_after_two_retries(fault: Scripted) -> LlmError {
    let stub = StubServer::start(vec![Scripted::forever(fault)]);
    let config = LlmConfig {
        max_retries: 2,
        ..config(&stub)
    };
    let (error, _) = fails(&stub, config).await;
    assert!(
        matches!(error, LlmError::Http { attempts: 3, .. }),
        "{error:?}"
    );
    assert_eq!(stub.requests().len(), 3);
    error
}

#[tokio::test]
async fn an_endpoint_that_always_cuts_its_reply_off_fails_after_the_retries_saying_so() {
    let error = fails_after_two_retries(Scripted::CutReply("x".repeat(1000))).await;
    assert!(error.to_string().contains("cut off"), "{error}");
}

#[tokio::test]
async fn an_endpoint_that_always_hangs_up_without_answering_fails_after_the_retries() {
    let error = fails_after_two_retries(Scripted::Hangup).await;
    assert!(error.to_string().contains("connection closed"), "{error}");
}

#[tokio::test]
async fn an_endpoint_that_answers_500_forever_fails_after_the_default_retries_and_backoff() {
    let stub = StubServer::start(vec![Scripted::forever(Scripted::status(500))]);
    let config = config(&stub);
    assert_eq!(config.max_retries, DEFAULT_MAX_RETRIES);
    let (error, elapsed) = fails(&stub, config).await;
    let attempts = DEFAULT_MAX_RETRIES + 1;
    assert!(
        matches!(error, LlmError::Status { status: 500, attempts: a, .. } if a == attempts),
        "{error:?}"
    );
    assert_eq!(stub.requests().len(), attempts as usize);
    let waited: Duration = (0..DEFAULT_MAX_RETRIES)
        .map(|i| (RETRY_BASE * 2u32.pow(i)).min(MAX_BACKOFF))
        .sum();
    assert!(elapsed >= waited, "{elapsed:?}: the backoff was not waited");
}

#[tokio::test]
async fn an_endpoint_that_streams_forever_fails_at_the_timeout() {
    let every = Duration::from_millis(50);
    let stub = StubServer::start(vec![Scripted::Endless { status: 200, every }]);
    let config = LlmConfig {
        timeout: Duration::from_secs(1),
        ..config(&stub)
    };
    let (error, elapsed) = fails(&stub, config).await;
    assert!(
        matches!(error, LlmError::Timeout { attempts: 1, .. }),
        "{error:?}"
    );
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert_eq!(stub.requests().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn an_endpoint_that_floods_a_reply_forever_is_cut_at_the_body_limit_before_the_timeout() {
    let stub = StubServer::start(vec![Scripted::Endless {
        status: 200,
        every: Duration::ZERO,
    }]);
    let config = LlmConfig {
        timeout: Duration::from_secs(60),
        ..config(&stub)
    };
    let (error, elapsed) = fails(&stub, config).await;
    assert!(
        matches!(error, LlmError::TooLarge { limit_bytes, .. } if limit_bytes == MAX_BODY_BYTES),
        "{error:?}"
    );
    assert!(
        elapsed < Duration::from_secs(60),
        "cut by the timeout, not the limit"
    );
    assert!(
        error.to_string().contains(&MAX_BODY_BYTES.to_string()),
        "{error}"
    );
}

#[tokio::test]
async fn an_error_whose_body_never_ends_is_reported_from_its_first_bytes() {
    let stub = StubServer::start(vec![Scripted::Endless {
        status: 400,
        every: Duration::ZERO,
    }]);
    let (error, _) = fails(&stub, config(&stub)).await;
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
    assert!(error.to_string().contains("xxx…"), "{error}");
}
