//! SendGrid's `POST /v3/mail/send` (https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send):
//! bearer API key, `Accept: application/json`, a JSON body with `personalizations[].to`, `from.email`,
//! `subject` and non-empty `content` (`text/plain` first); `202` with an empty body and `X-Message-Id`;
//! errors `{"errors": [{"field", "message", "help"}]}`.

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const API_KEY: &str = "SG.test-key.secret-part";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| accepted(&uuid::Uuid::new_v4().simple().to_string()[..22])).await
}

/// SendGrid's success: `202`, no body, the message id in `X-Message-Id`.
pub fn accepted(message_id: &str) -> FakeAnswer {
    FakeAnswer { status: 202, headers: Vec::new(), body: String::new() }.with_header("x-message-id", message_id)
}

pub fn error(status: u16, field: Option<&str>, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"errors": [{"field": field, "message": message, "help": null}]}))
}

/// The 429 SendGrid answers when the rate limit is hit.
pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    error(429, None, "too many requests")
        .with_header("x-ratelimit-limit", "600")
        .with_header("x-ratelimit-remaining", "0")
        .with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/v3/mail/send" {
        return Some(error(404, None, "resource not found"));
    }
    match request.header("authorization") {
        None => return Some(error(401, None, "authorization required")),
        Some(value) if value != format!("Bearer {API_KEY}") => {
            return Some(error(401, None, "The provided authorization grant is invalid, expired, or revoked"))
        }
        Some(_) => {}
    }
    if !request.header("accept").is_some_and(|accept| accept.contains("application/json")) {
        return Some(error(406, None, "Missing Accept header. For example: Accept: application/json"));
    }
    if !request.content_type_is("application/json") {
        return Some(error(415, None, "Content-Type should be application/json."));
    }
    let body = request.json();
    invalid(&body).map(|(field, message)| error(400, Some(field), message))
}

/// The first of SendGrid's validation errors the body fails, as `(field, message)`.
fn invalid(body: &Value) -> Option<(&'static str, &'static str)> {
    let personalizations = body["personalizations"].as_array().filter(|all| !all.is_empty());
    let Some(personalizations) = personalizations else {
        return Some((
            "personalizations",
            "The personalizations field is required and must have at least one personalization.",
        ));
    };
    for personalization in personalizations {
        if !is_mailbox_list(&personalization["to"]) {
            return Some((
                "personalizations.0.to",
                "The to array is required for all personalization objects, and must have at least one email object with a valid email address.",
            ));
        }
        for (field, list) in [("personalizations.0.cc", "cc"), ("personalizations.0.bcc", "bcc")] {
            if !personalization[list].is_null() && !is_mailbox_list(&personalization[list]) {
                return Some((field, "The cc and bcc arrays, when present, must have at least one email object."));
            }
        }
        let mut addresses: Vec<&str> = ["to", "cc", "bcc"]
            .iter()
            .flat_map(|list| personalization[*list].as_array().into_iter().flatten())
            .filter_map(|mailbox| mailbox["email"].as_str())
            .collect();
        let count = addresses.len();
        addresses.sort_unstable();
        addresses.dedup();
        if addresses.len() != count {
            return Some((
                "personalizations.0",
                "Each email address in the personalization block should be unique between to, cc, and bcc.",
            ));
        }
    }
    if !body["from"]["email"].as_str().is_some_and(|email| email.contains('@')) {
        return Some(("from.email", "The from object must be provided for every email send."));
    }
    if body["subject"].as_str().is_none_or(str::is_empty) {
        return Some(("subject", "The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined."));
    }
    let content = body["content"].as_array().filter(|content| !content.is_empty());
    let Some(content) = content else {
        return Some(("content", "Unless a valid template_id is provided, the content parameter is required. There must be at least one defined content block."));
    };
    if content.iter().any(|part| part["value"].as_str().is_none_or(str::is_empty)) {
        return Some(("content.0.value", "The content value must be a string at least one character in length."));
    }
    if content.iter().skip(1).any(|part| part["type"] == "text/plain") {
        return Some((
            "content",
            "If present, text/plain must be first, followed by text/html, followed by any other content.",
        ));
    }
    if body["custom_args"].as_object().is_some_and(|args| args.values().any(|value| !value.is_string())) {
        return Some(("custom_args", "Custom arguments must be strings."));
    }
    if body["categories"].as_array().is_some_and(|categories| categories.len() > 10) {
        return Some(("categories", "Too many categories: there can be at most 10."));
    }
    if body["ip_pool_name"].as_str().is_some_and(|pool| !(2..=64).contains(&pool.len())) {
        return Some(("ip_pool_name", "The ip_pool_name must be between 2 and 64 characters."));
    }
    None
}

fn is_mailbox_list(value: &Value) -> bool {
    value.as_array().is_some_and(|list| {
        !list.is_empty() && list.iter().all(|mailbox| mailbox["email"].as_str().is_some_and(|e| e.contains('@')))
    })
}
