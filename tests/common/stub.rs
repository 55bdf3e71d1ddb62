//! A STUB OpenAI-compatible chat-completions endpoint for tests (no LLM is reachable from the
//! test machines): a real HTTP/1.1 server on 127.0.0.1, on a random port, that answers
//! `POST /v1/chat/completions` with scripted replies, in order, and records every request it got.
//! It knows nothing of prompts; it runs on its own thread and runtime, so sync tests (driving
//! the `mcpevol` binary) and async tests can use it alike. Dropping it stops it.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The longest request head (request line and headers) the stub reads.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Status of the answer once the script is used up: a 4xx, which the client does not retry.
const EXHAUSTED_STATUS: u16 = 418;

/// What the stub answers to one request.
#[derive(Debug, Clone)]
pub enum Scripted {
    /// 200 and a chat completion whose message content is this text ("" for empty content).
    Reply(String),
    /// This status with an OpenAI-style error body (`message`, or a stub's own), and
    /// `Retry-After: secs` when given.
    Status {
        status: u16,
        retry_after: Option<u64>,
        message: Option<String>,
    },
    /// No answer: the stub waits this long, then closes the connection.
    Delay(Duration),
    /// 200 with an empty body.
    EmptyBody,
    /// The head and the first half of the body of a 200 with this reply, then the connection
    /// closed: a server that died mid-reply.
    CutReply(String),
    /// The connection closed as soon as the request is read, without a word.
    Hangup,
    /// This status and a chunked body that never ends: a chunk every `every` (as fast as the
    /// client reads when zero), until the client goes away.
    Endless { status: u16, every: Duration },
    /// This answer to this request and to every later one: the script never moves past it.
    Forever(Box<Scripted>),
}

impl Scripted {
    pub fn reply(text: impl Into<String>) -> Self {
        Scripted::Reply(text.into())
    }

    pub fn status(status: u16) -> Self {
        Scripted::Status {
            status,
            retry_after: None,
            message: None,
        }
    }

    /// This status with this error message (e.g. one that quotes the request's key back).
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Scripted::Status {
            status,
            retry_after: None,
            message: Some(message.into()),
        }
    }

    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Scripted::Status {
            status: 429,
            retry_after: Some(retry_after_secs),
            message: None,
        }
    }

    /// A reply of `chars` characters.
    pub fn huge(chars: usize) -> Self {
        Scripted::Reply("x".repeat(chars))
    }

    pub fn forever(item: Scripted) -> Self {
        Scripted::Forever(Box::new(item))
    }
}

/// One request as the stub received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

pub struct StubServer {
    /// `http://127.0.0.1:PORT/v1`: what `--base-url` or `LlmConfig::base_url` takes.
    pub base_url: String,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl StubServer {
    /// Starts the stub; it answers the `script` in order, then 418 to every further request.
    pub fn start(script: Vec<Scripted>) -> StubServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let addr: SocketAddr = listener.local_addr().expect("the stub's address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let recorded = requests.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the stub's runtime");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).expect("tokio listener");
                let serve = async {
                    loop {
                        let Ok((stream, _)) = listener.accept().await else {
                            continue;
                        };
                        let (script, recorded) = (script.clone(), recorded.clone());
                        tokio::spawn(async move {
                            let _ = serve_one(stream, &script, &recorded).await;
                        });
                    }
                };
                tokio::select! {
                    _ = serve => {}
                    _ = stop => {}
                }
            });
            // Dropping the runtime here cancels the connections still waiting (`Delay`).
        });
        StubServer {
            base_url: format!("http://{addr}/v1"),
            requests,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for StubServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one request, records it, answers the next scripted item and closes the connection
/// (`Connection: close`, so each attempt of a client is a request of its own).
async fn serve_one(
    mut stream: TcpStream,
    script: &Mutex<VecDeque<Scripted>>,
    recorded: &Mutex<Vec<RecordedRequest>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Ok(());
        }
        let mut chunk = [0u8; 8192];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_string();
    let path = request_line.next().unwrap_or_default().to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect();
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let mut chunk = vec![0u8; length - body.len()];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let request = RecordedRequest {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let model = serde_json::from_str::<Value>(&request.body)
        .ok()
        .and_then(|v| v.get("model").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| "stub-model".into());
    let prompt_words = words_of_messages(&request.body);
    let index = {
        let mut recorded = recorded.lock().unwrap();
        recorded.push(request);
        recorded.len()
    };
    let next = {
        let mut script = script.lock().unwrap();
        match script.front() {
            Some(Scripted::Forever(item)) => Some((**item).clone()),
            _ => script.pop_front(),
        }
    };
    let completion = |text: &str| completion(index, &model, prompt_words, text);
    let (status, extra, body) = match next {
        Some(Scripted::Reply(text)) => (200, String::new(), completion(&text)),
        Some(Scripted::Status {
            status,
            retry_after,
            message,
        }) => {
            let extra = retry_after
                .map(|s| format!("Retry-After: {s}\r\n"))
                .unwrap_or_default();
            let message = message.unwrap_or_else(|| format!("stub: scripted status {status}"));
            let body = json!({ "error": { "message": message, "type": "stub_error" } });
            (status, extra, body.to_string())
        }
        Some(Scripted::Delay(delay)) => {
            tokio::time::sleep(delay).await;
            return Ok(());
        }
        Some(Scripted::EmptyBody) => (200, String::new(), String::new()),
        Some(Scripted::CutReply(text)) => {
            let body = completion(&text);
            stream
                .write_all(answer_head(200, body.len(), "").as_bytes())
                .await?;
            stream.write_all(&body.as_bytes()[..body.len() / 2]).await?;
            return Ok(()); // dropping the stream closes the connection
        }
        Some(Scripted::Hangup) => return Ok(()),
        Some(Scripted::Endless { status, every }) => {
            return endless(&mut stream, status, every).await;
        }
        Some(Scripted::Forever(_)) => unreachable!("a Forever item is answered by what it holds"),
        None => {
            let body = json!({ "error": { "message": "stub: no scripted reply left" } });
            (EXHAUSTED_STATUS, String::new(), body.to_string())
        }
    };
    stream
        .write_all(answer_head(status, body.len(), &extra).as_bytes())
        .await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

/// The head of an answer with a body of `length` bytes; `extra` holds whole header lines.
fn answer_head(status: u16, length: usize, extra: &str) -> String {
    format!(
        "HTTP/1.1 {status} STUB\r\nContent-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n{extra}\r\n"
    )
}

/// A chat completion whose message content is `text`, as the stub's `index`th answer.
fn completion(index: usize, model: &str, prompt_words: u64, text: &str) -> String {
    let completion = text.split_whitespace().count() as u64;
    json!({
        "id": format!("chatcmpl-stub-{index}"),
        "object": "chat.completion",
        "created": 1_700_000_000u64,
        "model": model,
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": text },
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": prompt_words,
            "completion_tokens": completion,
            "total_tokens": prompt_words + completion
        }
    })
    .to_string()
}

/// Bytes of one chunk of an endless body.
const ENDLESS_CHUNK_BYTES: usize = 64 * 1024;

/// `status` and a chunked body that starts like a chat completion and never ends.
async fn endless(stream: &mut TcpStream, status: u16, every: Duration) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} STUB\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await?;
    let start = r#"{"choices": [{"message": {"role": "assistant", "content": ""#;
    let chunk = |data: &str| format!("{:x}\r\n{data}\r\n", data.len());
    stream.write_all(chunk(start).as_bytes()).await?;
    let more = chunk(&"x".repeat(ENDLESS_CHUNK_BYTES));
    loop {
        // Fails once the client has gone away, which ends the answer.
        stream.write_all(more.as_bytes()).await?;
        if !every.is_zero() {
            tokio::time::sleep(every).await;
        }
    }
}

/// The stub's "prompt tokens": the words of all message contents of a request body.
pub fn words_of_messages(body: &str) -> u64 {
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return 0;
    };
    let messages = value
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_str))
        .map(|c| c.split_whitespace().count() as u64)
        .sum()
}
