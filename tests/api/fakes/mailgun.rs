//! Mailgun's `POST /v3/{domain}/messages` (https://documentation.mailgun.com/docs/mailgun/api-reference/send/mailgun/messages):
//! HTTP Basic `api:<key>` (a plain-text `401 Forbidden` otherwise, whatever the cause: wrong key or wrong
//! region), a known domain (`404 {"message": "Domain not found: …"}`), a form body (multipart or
//! urlencoded) with `from`, `to`, `subject` and one of `text`/`html`; `200 {"id", "message": "Queued. Thank
//! you."}`; other errors `{"message"}`. The text of its 429 is not documented; this fake's is a guess.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const API_KEY: &str = "key-3ax6xnjp29jd6fds4gc373sgvjxteol0";
/// The one domain the fake's account has.
pub const DOMAIN: &str = "mg.acme.io";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| accepted(&format!("<20261124100000.{}@{DOMAIN}>", uuid::Uuid::new_v4().simple())))
        .await
}

/// Mailgun's success: the message id (`<…@domain>`) and "Queued. Thank you."
pub fn accepted(message_id: &str) -> FakeAnswer {
    FakeAnswer::json(200, json!({"id": message_id, "message": "Queued. Thank you."}))
}

pub fn error(status: u16, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"message": message}))
}

/// The 429 Mailgun answers when the rate limit is hit ("retry as defined in response").
pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    error(429, "Too many requests").with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.basic_auth() != Some(("api".to_owned(), API_KEY.to_owned())) {
        return Some(FakeAnswer::text(401, "Forbidden"));
    }
    let domain = request.path.strip_prefix("/v3/").and_then(|path| path.strip_suffix("/messages"));
    let Some(domain) = domain.filter(|_| request.method == "POST") else {
        return Some(error(404, "Not Found"));
    };
    if domain != DOMAIN {
        return Some(error(404, &format!("Domain not found: {domain}")));
    }
    let value = |name: &str| request.form_value(name);
    for required in ["from", "to", "subject"] {
        if value(required).is_none_or(|value| value.is_empty()) {
            return Some(error(400, &format!("'{required}' parameter is missing")));
        }
    }
    if value("text").is_none() && value("html").is_none() {
        return Some(error(400, "Need at least one of 'text', 'html' or 'template' parameters specified"));
    }
    if !is_address(&value("from").unwrap_or_default()) {
        return Some(error(400, "'from' parameter is not a valid address. please check documentation"));
    }
    for list in ["to", "cc", "bcc"] {
        let fields = request.form();
        let mut addresses = fields.iter().filter(|(key, _)| key == list).flat_map(|(_, value)| value.split(','));
        if !addresses.all(is_address) {
            return Some(error(400, &format!("'{list}' parameter is not a valid address. please check documentation")));
        }
    }
    None
}

/// `address` or `Name <address>` with an address that has a local part and a domain.
fn is_address(mailbox: &str) -> bool {
    let mailbox = mailbox.trim();
    let address = match mailbox.rsplit_once('<') {
        Some((_, rest)) => rest.strip_suffix('>').unwrap_or_default(),
        None => mailbox,
    };
    address.split_once('@').is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'))
}
