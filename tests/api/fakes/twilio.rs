//! Twilio's `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`
//! (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource): Basic
//! `AccountSid:AuthToken`, a form body with `To`, `From` or `MessagingServiceSid`, `Body` and an optional
//! `StatusCallback` URL (21609 when it is not one); `201` with
//! the message resource; errors `{"code", "message", "more_info", "status"}`.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const ACCOUNT_SID: &str = "AC0123456789abcdef0123456789abcdef";
pub const AUTH_TOKEN: &str = "twilio-test-auth-token";
pub const MESSAGES_PATH: &str = "/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Messages.json";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, created).await
}

pub fn error(status: u16, code: u32, message: &str) -> FakeAnswer {
    FakeAnswer::json(
        status,
        json!({"code": code, "message": message, "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
               "status": status}),
    )
}

/// The 429 Twilio answers over the account's concurrency limit.
pub fn too_many_requests(retry_after: &str) -> FakeAnswer {
    error(429, 20429, "Too many requests. Please retry according to the Retry-After response header.")
        .with_header("retry-after", retry_after)
}

fn created(request: &Recorded) -> FakeAnswer {
    let sid = format!("SM{}", uuid::Uuid::new_v4().simple());
    let service = request.form_value("MessagingServiceSid");
    let now = "Tue, 24 Nov 2026 10:00:00 +0000";
    FakeAnswer::json(
        201,
        json!({
            "account_sid": ACCOUNT_SID, "api_version": "2010-04-01", "body": request.form_value("Body"),
            "date_created": now, "date_sent": null, "date_updated": now, "direction": "outbound-api",
            "error_code": null, "error_message": null, "from": request.form_value("From"),
            "messaging_service_sid": service, "num_media": "0", "num_segments": "1", "price": null,
            "price_unit": "USD", "sid": sid, "status": if service.is_some() { "accepted" } else { "queued" },
            "subresource_uris": {"media": format!("{MESSAGES_PATH}/{sid}/Media.json")},
            "to": request.form_value("To"), "uri": format!("/2010-04-01/Accounts/{ACCOUNT_SID}/Messages/{sid}.json"),
        }),
    )
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let not_found = || error(404, 20404, &format!("The requested resource {} was not found", request.path));
    let Some(account) =
        request.path.strip_prefix("/2010-04-01/Accounts/").and_then(|rest| rest.strip_suffix("/Messages.json"))
    else {
        return Some(not_found());
    };
    if request.method != "POST" {
        return Some(error(405, 20004, "Method not allowed"));
    }
    if request.basic_auth() != Some((ACCOUNT_SID.to_owned(), AUTH_TOKEN.to_owned())) {
        return Some(error(401, 20003, "Authenticate"));
    }
    if account != ACCOUNT_SID {
        return Some(not_found());
    }
    // A JSON body is no body at all to Twilio: every parameter is then missing.
    let form = |name: &str| {
        if request.content_type_is("application/x-www-form-urlencoded") {
            request.form_value(name).filter(|value| !value.is_empty())
        } else {
            None
        }
    };
    let Some(to) = form("To") else {
        return Some(error(400, 21604, "A 'To' phone number is required."));
    };
    if form("From").is_none() && form("MessagingServiceSid").is_none() {
        return Some(error(400, 21603, "A 'From' phone number is required."));
    }
    if form("Body").is_none() && form("MediaUrl").is_none() {
        return Some(error(400, 21602, "Message body is required."));
    }
    if let Some(callback) = form("StatusCallback") {
        if url::Url::parse(&callback).map_or(true, |url| !matches!(url.scheme(), "http" | "https")) {
            return Some(error(400, 21609, &format!("Invalid StatusCallback URL: {callback}")));
        }
    }
    let digits = to.strip_prefix('+').unwrap_or(&to);
    if digits.len() < 6 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Some(error(400, 21211, &format!("Invalid 'To' Phone Number: {to}")));
    }
    None
}
