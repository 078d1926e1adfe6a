//! Reading a provider's answer: bounded, truncated for the record, and searched for a message id.

use serde_json::Value;

use super::Accepted;

/// Longest answer body kept in `raw` (execution details and messages stay small).
const MAX_RAW: usize = 4 * 1024;
/// Longest answer body read at all: enough to find a message id in a chatty JSON answer, while a receiver
/// that streams without end cannot fill our memory.
const MAX_READ: usize = 64 * 1024;

/// A provider's answer body (at most `MAX_READ` bytes of it).
pub(crate) struct Answer {
    text: String,
}

impl Answer {
    /// Reads the body. One that breaks off keeps what arrived: the status line is already the receiver's
    /// verdict, and retrying a message it accepted would risk delivering it twice.
    pub(crate) async fn read(mut response: reqwest::Response) -> Self {
        let mut bytes = Vec::new();
        while bytes.len() < MAX_READ {
            match response.chunk().await {
                Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        bytes.truncate(MAX_READ);
        Self { text: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// The whole body as read.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The body for the record: truncated, `None` when empty.
    pub(crate) fn raw(&self) -> Option<String> {
        (!self.text.is_empty()).then(|| truncate(&self.text, MAX_RAW).to_owned())
    }

    /// Accepted, with the provider's message id read from the JSON answer at the dotted `id_path`.
    pub(crate) fn accepted(self, id_path: &str) -> Accepted {
        let provider_message_id = self.value(id_path);
        self.accepted_as(provider_message_id)
    }

    /// Accepted, with a message id the provider gave elsewhere (a header) or none.
    pub(crate) fn accepted_as(self, provider_message_id: Option<String>) -> Accepted {
        Accepted { provider_message_id, raw: self.raw() }
    }

    /// The string or number at the dotted `path` of a JSON answer, as text.
    pub(crate) fn value(&self, path: &str) -> Option<String> {
        serde_json::from_str::<Value>(&self.text).ok().and_then(|json| dotted(&json, path).and_then(id_text))
    }
}

/// The value at a dotted path (`data.messages.0.id`); numeric segments index arrays.
pub(crate) fn dotted<'v>(json: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(json, |value, segment| match value {
        Value::Array(items) => items.get(segment.parse::<usize>().ok()?),
        _ => value.get(segment),
    })
}

/// An id (or code) as text: strings as they are, numbers written out; anything else is not one.
fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
