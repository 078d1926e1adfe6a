//! Postmark's `POST /email` (https://postmarkapp.com/developer/api/email-api): `X-Postmark-Server-Token`
//! (`401 {"ErrorCode": 10}` otherwise), `Accept` and `Content-Type: application/json` (ErrorCode 409,
//! "JSON required"), `From`, `To` and one of `HtmlBody`/`TextBody` (ErrorCode 300); `200 {"To",
//! "SubmittedAt", "MessageID", "ErrorCode": 0, "Message": "OK"}`; errors `422 {"ErrorCode", "Message"}`,
//! 406 for a recipient on the server's suppression list (`INACTIVE`).

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const SERVER_TOKEN: &str = "f4e1c1a2-7b39-4c4e-9d1d-postmark-secret";
/// An address that hard-bounced earlier: Postmark refuses to send to it.
pub const INACTIVE: &str = "bounced@example.com";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |request| accepted(&uuid::Uuid::new_v4().to_string(), &request.json()["To"])).await
}

/// Postmark's success for a message to `to`.
pub fn accepted(message_id: &str, to: &Value) -> FakeAnswer {
    FakeAnswer::json(
        200,
        json!({"To": to, "SubmittedAt": "2026-11-24T10:00:00.1234567Z", "MessageID": message_id,
               "ErrorCode": 0, "Message": "OK"}),
    )
}

pub fn error(status: u16, code: u16, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"ErrorCode": code, "Message": message}))
}

/// The 429 Postmark answers when the rate limit is hit.
pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    error(429, 429, "Rate limit exceeded.").with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/email" {
        return Some(FakeAnswer::text(404, "Not Found"));
    }
    match request.header("x-postmark-server-token") {
        None => return Some(error(401, 10, "No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.")),
        Some(token) if token != SERVER_TOKEN => {
            return Some(error(401, 10, "Request does not contain a valid Server token."))
        }
        Some(_) => {}
    }
    let accepts_json = request.header("accept").is_some_and(|accept| accept.contains("application/json"));
    if !accepts_json || !request.content_type_is("application/json") {
        return Some(error(
            422,
            409,
            "JSON required. Please set the Accept and Content-Type headers to application/json.",
        ));
    }
    let body = request.json();
    if !body.is_object() {
        return Some(error(422, 402, "Received invalid JSON input."));
    }
    let text = |field: &str| body[field].as_str().unwrap_or_default();
    if !text("From").contains('@') {
        return Some(error(422, 300, &format!("Invalid 'From' address: '{}'.", text("From"))));
    }
    let recipients: Vec<&str> = ["To", "Cc", "Bcc"]
        .iter()
        .flat_map(|field| text(field).split(','))
        .map(str::trim)
        .filter(|address| !address.is_empty())
        .collect();
    if text("To").trim().is_empty() {
        return Some(error(422, 300, "Zero recipients specified"));
    }
    if recipients.len() > 50 {
        return Some(error(422, 300, "Too many recipients: at most 50 in To, Cc and Bcc together."));
    }
    if text("HtmlBody").is_empty() && text("TextBody").is_empty() {
        return Some(error(422, 300, "Provide either email TextBody or HtmlBody or both."));
    }
    let named = |header: &Value| header["Name"].is_string() && header["Value"].is_string();
    if !body["Headers"].is_null() && !body["Headers"].as_array().is_some_and(|headers| headers.iter().all(named)) {
        return Some(error(422, 403, "Incompatible JSON input: Headers must be a list of {Name, Value}."));
    }
    if recipients.contains(&INACTIVE) {
        return Some(error(422, 406, &format!("You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: {INACTIVE}. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.")));
    }
    None
}
