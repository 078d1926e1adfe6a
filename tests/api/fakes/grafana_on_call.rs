//! A Grafana OnCall "Formatted Webhook" integration, `POST /integrations/v1/formatted_webhook/{token}/`
//! (https://grafana.com/docs/oncall/latest/integrations/webhook/; grafana/oncall
//! `engine/apps/integrations/views.py` `UniversalAPIView`): a JSON object whose fields are all optional;
//! `200` with the JSON string `"Ok."`. An unknown token is `403` "Integration key was not found.
//! Permission denied."; the token of an integration of another type `400` "This url is for integration
//! with …"; an empty body `400` "Payload is required". Tests script [`rate_limited`] (plain text, no
//! `Retry-After`, as OnCall's rate-limit mixin answers) and 5xx.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const TOKEN: &str = "mKq3ZfW8nR2xPv7LtB5cYd9hJ";
/// The token of an Alertmanager integration, not a Formatted Webhook one.
pub const ALERTMANAGER_TOKEN: &str = "aLeRtMaNaGeR0000000000000";
pub const NOT_FOUND: &str = "Integration key was not found. Permission denied.";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| FakeAnswer::json(200, json!("Ok."))).await
}

/// The integration's URL at `fake` for `token`.
pub fn webhook_url(fake: &FakeProvider, token: &str) -> String {
    format!("{}/integrations/v1/formatted_webhook/{token}/", fake.base_url())
}

pub fn rate_limited() -> FakeAnswer {
    FakeAnswer::text(429, "Rate-limit for integration exceeded. Please, try again later.")
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(token) =
        request.path.strip_prefix("/integrations/v1/formatted_webhook/").and_then(|rest| rest.strip_suffix('/'))
    else {
        return Some(FakeAnswer::text(404, "Not Found"));
    };
    if request.method != "POST" {
        return Some(FakeAnswer::json(405, json!({"detail": "Method \"GET\" not allowed."})));
    }
    match token {
        TOKEN => {}
        ALERTMANAGER_TOKEN => {
            return Some(FakeAnswer::text(400, "This url is for integration with Alertmanager. Key is for Webhook"))
        }
        _ => return Some(FakeAnswer::text(403, NOT_FOUND)),
    }
    let body = request.json();
    if !request.content_type_is("application/json") || body.as_object().is_none_or(|fields| fields.is_empty()) {
        return Some(FakeAnswer::text(400, "Payload is required"));
    }
    None
}
