//! The server's stdout: JSON-RPC lines go on to the MCP client; anything else a server prints
//! (banners, console.log debugging) is set aside as evidence, as the reference TypeScript
//! client tolerates it too; a line over the size limit ends the session with its cause named.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream};

/// The longest line (one JSON-RPC message) taken from a server: a 16 MiB answer is far beyond
/// any real tool list or result, and reading without a bound lets a broken server fill memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Stdout lines that are not JSON-RPC, kept to explain a failed handshake.
const NOISE_LINES_KEPT: usize = 5;
/// Characters kept of each such line.
const NOISE_CHARS_KEPT: usize = 200;

/// What a server printed that was not protocol.
#[derive(Debug, Default, Clone)]
pub struct Evidence {
    pub noise: Vec<String>,
    /// Why the stream was cut, if it was: a protocol fault the session must name.
    pub fault: Option<String>,
}

enum Line {
    End,
    Complete,
    TooLong,
}

/// Reads one line into `line` (without its newline), stopping as soon as it passes `limit`.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line> {
    line.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::End
            } else {
                Line::Complete
            });
        }
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if line.len() + chunk.len() > limit {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(chunk);
        reader.consume(used);
        if done {
            return Ok(Line::Complete);
        }
    }
}

/// Passes JSON-RPC lines to the client until stdout ends, the client goes away, or a line is
/// over the limit; then closes the client's end, so that a pending request fails at once.
/// With the server killed, its stdout ends and so does this.
pub async fn forward(
    stdout: impl AsyncRead + Unpin,
    mut to_client: DuplexStream,
    evidence: Arc<Mutex<Evidence>>,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        match read_line(&mut reader, &mut line, MAX_LINE_BYTES).await {
            Ok(Line::Complete) => {}
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong) => {
                evidence.lock().unwrap().fault = Some(format!(
                    "printed a line of more than {} MiB on stdout, over the limit for one message",
                    MAX_LINE_BYTES / (1024 * 1024)
                ));
                let _ = to_client.shutdown().await;
                // The rest is read and dropped, so that the server is not killed by a broken
                // pipe before it is stopped, which would bury the cause under its crash.
                let _ = tokio::io::copy(&mut reader, &mut tokio::io::sink()).await;
                return;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            if let Some(fixed) = tool_result_without_list(trimmed) {
                line = fixed.into_bytes();
            }
            if to_client.write_all(&line).await.is_err()
                || to_client.write_all(b"\n").await.is_err()
            {
                break;
            }
        } else if !trimmed.is_empty() {
            let mut evidence = evidence.lock().unwrap();
            if evidence.noise.len() < NOISE_LINES_KEPT {
                evidence
                    .noise
                    .push(text.chars().take(NOISE_CHARS_KEPT).collect());
            }
        }
    }
    let _ = to_client.shutdown().await;
}

/// A tool result that also carries a `tools` list (`{"tools": [], "content": [...]}`), which
/// the TypeScript client reads as the tool result it is, but rmcp's untagged result types read
/// as a tool listing and then refuse: the same result without the stray list. None for every
/// other line (the common case is decided on the text, without parsing).
fn tool_result_without_list(line: &str) -> Option<String> {
    if !line.contains("\"tools\"") || !line.contains("\"content\"") {
        return None;
    }
    let mut message: serde_json::Value = serde_json::from_str(line).ok()?;
    let result = message.get_mut("result")?.as_object_mut()?;
    if !result
        .get("content")
        .is_some_and(serde_json::Value::is_array)
    {
        return None;
    }
    result.remove("tools")?;
    serde_json::to_string(&message).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_result_carrying_a_tools_list_loses_only_that_list() {
        let line = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[],"isError":false,"content":[{"type":"text","text":"ok"}]}}"#;
        let fixed: serde_json::Value =
            serde_json::from_str(&tool_result_without_list(line).unwrap()).unwrap();
        assert_eq!(
            fixed,
            serde_json::json!({"jsonrpc":"2.0","id":3,"result":{"isError":false,"content":[{"type":"text","text":"ok"}]}})
        );
        // A real tool listing, and a result that only mentions the words, pass unchanged.
        let listing =
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"content","inputSchema":{}}]}}"#;
        assert_eq!(tool_result_without_list(listing), None);
        let plain =
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"\"tools\""}]}}"#;
        assert_eq!(tool_result_without_list(plain), None);
    }

    async fn lines_of(input: &[u8], limit: usize) -> Vec<Result<String, &'static str>> {
        let mut reader = BufReader::with_capacity(7, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, &mut line, limit).await.unwrap() {
                Line::End => return out,
                Line::Complete => out.push(Ok(String::from_utf8_lossy(&line).into_owned())),
                Line::TooLong => {
                    out.push(Err("too long"));
                    return out;
                }
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_across_buffer_refills_and_a_last_line_needs_no_newline() {
        let got = lines_of(b"{\"a\":1}\nsecond line here\nlast", 100).await;
        assert_eq!(
            got,
            [
                Ok("{\"a\":1}".to_string()),
                Ok("second line here".to_string()),
                Ok("last".to_string())
            ]
        );
    }

    #[tokio::test]
    async fn a_line_over_the_limit_stops_the_reading_without_keeping_it() {
        let got = lines_of(b"short\nxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nnever read\n", 10).await;
        assert_eq!(got, [Ok("short".to_string()), Err("too long")]);
        let exactly = lines_of(b"0123456789\n", 10).await;
        assert_eq!(exactly, [Ok("0123456789".to_string())]);
    }
}
