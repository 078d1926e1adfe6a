//! A Ryver incoming webhook ("Ryvhook"), `POST /application/webhook/{token}`
//! (https://api.ryver.com/ryvhooks_simple_incoming.html): plain text, or JSON whose `body` (or, for a
//! Slack-format hook, `text`) is the message; `200` with an empty body. Ryver documents no errors: this
//! fake answers `404` for an unknown token (deleted hook) and `400` for a body without text, and tests
//! script the others ([`rate_limited`], 5xx).

use super::{FakeAnswer, FakeProvider, Recorded};

pub const TOKEN: &str = "Zb7Q2mK9xLwP4rT8";
pub const DELETED_TOKEN: &str = "D3l3t3dH00kT0k3n";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| FakeAnswer::text(200, "")).await
}

/// The hook's URL at `fake` (`token` = [`TOKEN`] or [`DELETED_TOKEN`]).
pub fn webhook_url(fake: &FakeProvider, token: &str) -> String {
    format!("{}/application/webhook/{token}", fake.base_url())
}

pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    FakeAnswer::text(429, "Too Many Requests").with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(token) = request.path.strip_prefix("/application/webhook/") else {
        return Some(FakeAnswer::text(404, "Not Found"));
    };
    if token != TOKEN {
        return Some(FakeAnswer::text(404, "Not Found"));
    }
    if request.method != "POST" {
        return Some(FakeAnswer::text(405, "Method Not Allowed"));
    }
    let has_text = if request.content_type_is("application/json") {
        let body = request.json();
        ["body", "text"].iter().any(|field| body[field].as_str().is_some_and(|text| !text.is_empty()))
    } else {
        !request.body.is_empty()
    };
    if !has_text {
        return Some(FakeAnswer::text(400, "Bad Request"));
    }
    None
}
