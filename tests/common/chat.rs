//! What the LLM client tests share: a client of the STUB endpoint (`stub.rs`) with a test key,
//! the messages they send, and the check that the key is in no error.

use std::time::Duration;

use mcpevol::llm::{ChatMessage, LlmClient, LlmConfig, LlmError};

use super::stub::StubServer;

pub const KEY: &str = "sk-test-SECRET-123";

pub fn config(stub: &StubServer) -> LlmConfig {
    LlmConfig {
        model: "stub-model".into(),
        base_url: stub.base_url.clone(),
        api_key: Some(KEY.into()),
        timeout: Duration::from_secs(5),
        ..LlmConfig::default()
    }
}

pub fn client(stub: &StubServer) -> LlmClient {
    LlmClient::new(config(stub)).expect("a client for the stub")
}

pub fn messages() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("You edit MCP servers."),
        ChatMessage::user("Rename the tool get_forecast."),
    ]
}

pub fn assert_no_key(error: &LlmError) {
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(!text.contains(KEY), "the key leaked into an error: {text}");
        assert!(
            !text.contains("SECRET"),
            "part of the key leaked into an error: {text}"
        );
    }
}
