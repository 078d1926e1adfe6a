//! The WhatsApp Cloud API's `POST /v22.0/<phone number id>/messages`
//! (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages): `Authorization: Bearer
//! <token>`, JSON with `messaging_product: "whatsapp"`, `to` and a `type` whose object is present.
//! Success: `200 {"messaging_product", "contacts": [{"input", "wa_id"}], "messages": [{"id": "wamid…"}]}`.
//! Errors are Graph errors `{"error": {"message", "type", "code", "error_subcode"?, "fbtrace_id"}}`: a bad
//! token is 401 code 190, an unknown phone number id 400 code 100 subcode 33, a bad parameter 400 code 100.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const PHONE_NUMBER_ID: &str = "106540352242922";
pub const TOKEN: &str = "EAAJB3n0fakeWhatsAppToken";
pub const INVALID_TOKEN: &str = "Invalid OAuth access token - Cannot parse access token";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, sent).await
}

pub fn graph_error(status: u16, code: i64, subcode: Option<i64>, message: &str) -> FakeAnswer {
    let mut error = json!({"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEf123"});
    if let Some(subcode) = subcode {
        error["error_subcode"] = json!(subcode);
    }
    FakeAnswer::json(status, json!({"error": error}))
}

pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    graph_error(429, 130429, None, "(#130429) Rate limit hit").with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(rest) = request.path.strip_prefix("/v22.0/") else {
        return Some(graph_error(400, 2500, None, "Unknown path components"));
    };
    if request.header("authorization") != Some(format!("Bearer {TOKEN}").as_str()) {
        return Some(graph_error(401, 190, None, INVALID_TOKEN));
    }
    if request.method != "POST" || rest != format!("{PHONE_NUMBER_ID}/messages") {
        return Some(graph_error(
            400,
            100,
            Some(33),
            "Unsupported post request. Object with ID does not exist, cannot be loaded due to missing permissions, \
             or does not support this operation.",
        ));
    }
    let body = request.json();
    if !request.content_type_is("application/json") || body["messaging_product"] != "whatsapp" {
        return Some(graph_error(400, 100, None, "(#100) The parameter messaging_product is required."));
    }
    if body["to"].as_str().is_none_or(str::is_empty) {
        return Some(graph_error(400, 100, None, "(#100) The parameter to is required."));
    }
    let Some(kind) = body["type"].as_str() else {
        return Some(graph_error(400, 100, None, "(#100) The parameter type is required."));
    };
    if body[kind].is_null() || (kind == "text" && body["text"]["body"].as_str().is_none_or(str::is_empty)) {
        return Some(graph_error(400, 100, None, &format!("(#100) The parameter {kind} is required.")));
    }
    None
}

fn sent(request: &Recorded) -> FakeAnswer {
    let to = request.json()["to"].as_str().unwrap_or_default().to_owned();
    FakeAnswer::json(
        200,
        json!({"messaging_product": "whatsapp", "contacts": [{"input": to, "wa_id": to.trim_start_matches('+')}],
               "messages": [{"id": format!("wamid.{}", uuid::Uuid::new_v4().simple())}]}),
    )
}
