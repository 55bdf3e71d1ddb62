//! Reading a reply's body with a cap on its size: an endpoint that streams without end must fail
//! the call once the cap is passed, not fill memory until the timeout ends it.

/// The most bytes a successful reply's body may have: [`crate::llm::MAX_REPLY_CHARS`] characters
/// of four bytes each, JSON-escaped, fit several times over.
pub const MAX_BODY_BYTES: usize = 8 << 20;
/// The most bytes of an error body read for its message; the rest is never read.
pub const MAX_ERROR_BODY_BYTES: usize = 64 << 10;

/// The call failed because the body passed [`MAX_BODY_BYTES`]; carried through async-openai as
/// `OpenAIError::Boxed`, like [`crate::llm::retry`]'s status failures.
#[derive(Debug, thiserror::Error)]
#[error("the reply body passed {limit} bytes")]
pub(crate) struct BodyTooLarge {
    pub limit: usize,
}

pub(crate) enum BodyError {
    TooLarge,
    Read(reqwest::Error),
}

/// The body, read to its end; [`BodyError::TooLarge`] as soon as it passes `limit` bytes.
pub(crate) async fn read_all(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// At most the first `limit` bytes of the body; whatever was read when it fails.
pub(crate) async fn read_prefix(response: &mut reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let take = chunk.len().min(limit - body.len());
                body.extend_from_slice(&chunk[..take]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    body
}

/// The response again, its body now `bytes` (already read): what async-openai reads next.
pub(crate) fn with_body(response: reqwest::Response, bytes: Vec<u8>) -> reqwest::Response {
    let response: http::Response<reqwest::Body> = response.into();
    reqwest::Response::from(response.map(|_| reqwest::Body::from(bytes)))
}
