//! IO's services API (pagopa/io-functions-services `openapi/index.yaml`), under `/api/v1`, both with
//! `Ocp-Apim-Subscription-Key`: `POST /profiles {"fiscal_code"}` answers `200 {"sender_allowed",
//! "preferred_languages"}` or `404` ProblemJson (no IO user); `POST /messages {"fiscal_code", "content":
//! {"subject" (10–120), "markdown" (80–10000)}}` answers `201 {"id"}` or `400` ProblemJson `{type, title,
//! status, detail}`. A wrong key is `401 {"statusCode": 401, "message": "Access denied due to invalid
//! subscription key. …"}` (Azure API Management). Tests script 429 and 500.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const API_KEY: &str = "0b1c6f5a2e9d4c7b8a3f1e2d4c6b8a0f";
pub const BASE_PATH: &str = "/api/v1";
/// A citizen with IO who allows this service.
pub const FISCAL_CODE: &str = "SPNDNL80R13C523K";
/// A citizen with IO who turned this service off.
pub const BLOCKED_FISCAL_CODE: &str = "RSSMRA85T10A562S";
pub const MESSAGE_ID: &str = "01EM6X4JB9VSZTQ8H16KMQFCEJ";

pub fn base_url(fake: &FakeProvider) -> String {
    format!("{}{BASE_PATH}", fake.base_url())
}

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |request| {
        if request.path.ends_with("/profiles") {
            let allowed = request.json()["fiscal_code"] != BLOCKED_FISCAL_CODE;
            FakeAnswer::json(200, json!({"sender_allowed": allowed, "preferred_languages": ["it_IT"]}))
        } else {
            FakeAnswer::json(201, json!({"id": MESSAGE_ID}))
        }
    })
    .await
}

pub fn problem(status: u16, title: &str, detail: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"type": "about:blank", "title": title, "status": status, "detail": detail}))
        .with_header("content-type", "application/problem+json")
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let path = request.path.strip_prefix(BASE_PATH)?;
    if !matches!(path, "/profiles" | "/messages") {
        return Some(FakeAnswer::json(404, json!({"statusCode": 404, "message": "Resource not found"})));
    }
    if request.method != "POST" {
        return Some(FakeAnswer::json(405, json!({"statusCode": 405, "message": "Method not allowed"})));
    }
    if request.header("ocp-apim-subscription-key") != Some(API_KEY) {
        let message = "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.";
        return Some(FakeAnswer::json(401, json!({"statusCode": 401, "message": message})));
    }
    let body = request.json();
    let fiscal_code = body["fiscal_code"].as_str().unwrap_or_default();
    if fiscal_code.len() != 16 || !request.content_type_is("application/json") {
        return Some(problem(400, "Invalid FiscalCode", "value is not a valid fiscal code"));
    }
    if ![FISCAL_CODE, BLOCKED_FISCAL_CODE].contains(&fiscal_code) {
        return Some(problem(404, "Profile not found", "The profile you requested was not found in the system."));
    }
    if path == "/messages" {
        let chars = |key: &str| body["content"][key].as_str().map(|text| text.chars().count()).unwrap_or(0);
        if !(10..=120).contains(&chars("subject")) || !(80..=10_000).contains(&chars("markdown")) {
            return Some(problem(400, "Invalid NewMessage", "value is not a valid MessageContent"));
        }
    }
    None
}
