//! Recorded exchanges played back in order, as if the endpoint answered them again: a run with
//! the same seed on the same workspace sends the same requests, so it gets the same replies.
//! A request that differs from the recorded one is an error, never a silently wrong reply.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::llm::retry::shorten;
use crate::llm::{Chat, ChatFuture, ChatMessage, Exchange, LlmError};

/// How much of a differing line a mismatch quotes.
const MAX_QUOTED_LINE_CHARS: usize = 200;
/// Stands for the missing side when one request has fewer lines than the other.
const END_OF_REQUEST: &str = "<end of request>";

pub struct Replay {
    exchanges: Mutex<VecDeque<Exchange>>,
    recorded: usize,
}

impl Replay {
    pub fn new(exchanges: impl IntoIterator<Item = Exchange>) -> Self {
        let exchanges: VecDeque<Exchange> = exchanges.into_iter().collect();
        let recorded = exchanges.len();
        Replay {
            exchanges: Mutex::new(exchanges),
            recorded,
        }
    }

    /// Exchanges not replayed yet.
    pub fn remaining(&self) -> usize {
        self.queue().len()
    }

    /// The next recorded exchange, when `messages` is exactly its request.
    pub fn next(&self, messages: &[ChatMessage]) -> Result<Exchange, LlmError> {
        let mut queue = self.queue();
        let index = self.recorded - queue.len();
        let Some(recorded) = queue.front() else {
            return Err(LlmError::ReplayExhausted {
                recorded: self.recorded,
            });
        };
        if recorded.request != messages {
            let (expected_first_line, got_first_line) =
                first_difference(&recorded.request, messages);
            return Err(LlmError::ReplayMismatch {
                index,
                expected_first_line,
                got_first_line,
            });
        }
        Ok(queue.pop_front().expect("the front was just read"))
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Exchange>> {
        // A panic elsewhere while holding the lock leaves the queue itself consistent.
        self.exchanges
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Chat for Replay {
    fn chat<'a>(&'a self, messages: &'a [ChatMessage]) -> ChatFuture<'a> {
        Box::pin(std::future::ready(self.next(messages)))
    }
}

/// The first line where two requests differ, each side shortened; a line is a message header
/// (`[2 user]`) or a line of its content, so a moved message boundary counts as a difference.
fn first_difference(expected: &[ChatMessage], got: &[ChatMessage]) -> (String, String) {
    let expected = lines(expected);
    let got = lines(got);
    let at = (0..expected.len().max(got.len()))
        .find(|&i| expected.get(i) != got.get(i))
        .unwrap_or(0);
    let side = |lines: &[String]| {
        lines
            .get(at)
            .map(|line| shorten(line, MAX_QUOTED_LINE_CHARS))
            .unwrap_or_else(|| END_OF_REQUEST.to_string())
    };
    (side(&expected), side(&got))
}

fn lines(messages: &[ChatMessage]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        out.push(format!("[{} {}]", i + 1, message.role));
        out.extend(message.content.split('\n').map(str::to_string));
    }
    out
}
