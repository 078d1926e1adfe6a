//! Firebase Cloud Messaging HTTP v1 and Google's OAuth token endpoint, each its own fake:
//! - `oauth`, `POST /token` (https://developers.google.com/identity/protocols/oauth2/service-account):
//!   a form with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and an RS256 `assertion`,
//!   whose signature it verifies with the public half of the test service account's key, and whose
//!   claims it checks as Google does (`iss` the account, the FCM `scope`, `aud` the URL called, at most
//!   an hour between `iat` and `exp`). `200 {"access_token", "expires_in", "token_type": "Bearer"}`;
//!   refusals `400 {"error", "error_description"}`;
//! - `api`, `POST /v1/projects/{project_id}/messages:send` (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages/send):
//!   a bearer token `oauth` issued and has not expired (else `401 UNAUTHENTICATED`), JSON
//!   `{"message": {"token", "notification": {title, body, image}, "data": {string: string}, …}}`.
//!   `200 {"name": "projects/{project_id}/messages/{id}"}`; errors are google.rpc statuses with an
//!   `FcmError` detail naming the `errorCode` (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode).
//!
//! A device token can be given its own answer (an app that was uninstalled: [`unregistered`]), since
//! the sends of one message arrive in any order.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::signature::{KeyPair, RsaKeyPair, UnparsedPublicKey, RSA_PKCS1_2048_8192_SHA256};
use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const PROJECT_ID: &str = "herald-push-test";
pub const CLIENT_EMAIL: &str = "herald-sender@herald-push-test.iam.gserviceaccount.com";
pub const PRIVATE_KEY_ID: &str = "5b1f2d6c0e9a4b3c8d7e6f5a4b3c2d1e0f9a8b7c";
/// A test-only RSA key, committed for the tests (ring cannot generate RSA keys).
pub const PRIVATE_KEY: &str = include_str!("../../fixtures/fcm-test-key.pem");
const SCOPE: &str = "https://www.googleapis.com/auth/firebase.messaging";
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// What the two endpoints share: the tokens issued, and the answers given to particular device tokens.
struct State {
    valid: HashSet<String>,
    issued: usize,
    expires_in: u64,
    device_answers: HashMap<String, FakeAnswer>,
    sent: usize,
}

/// Both fakes; `oauth` and `api` also record requests and take scripted answers.
pub struct Fcm {
    pub oauth: FakeProvider,
    pub api: FakeProvider,
    state: Arc<Mutex<State>>,
}

impl Fcm {
    pub async fn start() -> Self {
        let state = Arc::new(Mutex::new(State {
            valid: HashSet::new(),
            issued: 0,
            expires_in: 3599,
            device_answers: HashMap::new(),
            sent: 0,
        }));
        let public_key = public_key();
        let issuing = state.clone();
        let oauth = FakeProvider::start(
            move |request| check_assertion(request, &public_key),
            move |_| {
                let mut state = issuing.lock().unwrap();
                let token = format!("ya29.c.fake-{}", uuid::Uuid::new_v4().simple());
                state.valid.insert(token.clone());
                state.issued += 1;
                FakeAnswer::json(
                    200,
                    json!({"access_token": token, "expires_in": state.expires_in, "token_type": "Bearer"}),
                )
            },
        )
        .await;
        let (checking, answering) = (state.clone(), state.clone());
        let api = FakeProvider::start(
            move |request| check_send(request, &checking.lock().unwrap().valid),
            move |request| {
                let mut state = answering.lock().unwrap();
                let device_token = request.json()["message"]["token"].as_str().unwrap_or_default().to_owned();
                if let Some(answer) = state.device_answers.get(&device_token) {
                    return answer.clone();
                }
                state.sent += 1;
                let id = format!("0:{}%{:016x}", 1_700_000_000_000_000u64 + state.sent as u64, rand::random::<u64>());
                FakeAnswer::json(200, json!({"name": format!("projects/{PROJECT_ID}/messages/{id}")}))
            },
        )
        .await;
        Self { oauth, api, state }
    }

    /// The test service account's key file, its `token_uri` at `oauth`.
    pub fn service_account(&self) -> Value {
        json!({
            "type": "service_account",
            "project_id": PROJECT_ID,
            "private_key_id": PRIVATE_KEY_ID,
            "private_key": PRIVATE_KEY,
            "client_email": CLIENT_EMAIL,
            "client_id": "109876543210987654321",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": format!("{}/token", self.oauth.base_url()),
        })
    }

    /// An integration's credentials: the key file as the text an operator pastes, `baseUrl` at `api`.
    pub fn credentials(&self) -> Value {
        json!({"serviceAccount": self.service_account().to_string(), "baseUrl": self.api.base_url()})
    }

    /// How many access tokens `oauth` issued.
    pub fn exchanges(&self) -> usize {
        self.state.lock().unwrap().issued
    }

    /// Every token issued so far expires now: FCM answers 401 to them.
    pub fn expire_tokens(&self) {
        self.state.lock().unwrap().valid.clear();
    }

    /// The lifetime (`expires_in`) of the tokens issued from now on.
    pub fn issue_tokens_for(&self, seconds: u64) {
        self.state.lock().unwrap().expires_in = seconds;
    }

    /// FCM answers `answer` to every send to `device_token`.
    pub fn answer_device(&self, device_token: &str, answer: FakeAnswer) {
        self.state.lock().unwrap().device_answers.insert(device_token.to_owned(), answer);
    }
}

/// A google.rpc status as FCM answers it; `error_code` goes in its `FcmError` detail.
pub fn error(code: u16, status: &str, message: &str, error_code: Option<&str>) -> FakeAnswer {
    let details: Vec<Value> = error_code
        .map(|error_code| json!({"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": error_code}))
        .into_iter()
        .collect();
    FakeAnswer::json(code, json!({"error": {"code": code, "message": message, "status": status, "details": details}}))
}

/// The app was uninstalled, or the token expired.
pub fn unregistered() -> FakeAnswer {
    error(404, "NOT_FOUND", "Requested entity was not found.", Some("UNREGISTERED"))
}

/// The token belongs to another Firebase project.
pub fn sender_id_mismatch() -> FakeAnswer {
    error(403, "PERMISSION_DENIED", "SenderId mismatch", Some("SENDER_ID_MISMATCH"))
}

/// The project's sending quota, with the wait FCM asks for.
pub fn quota_exceeded(retry_after: &str) -> FakeAnswer {
    error(
        429,
        "RESOURCE_EXHAUSTED",
        "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service \
         'fcm.googleapis.com'.",
        Some("QUOTA_EXCEEDED"),
    )
    .with_header("retry-after", retry_after)
}

pub fn unavailable() -> FakeAnswer {
    error(503, "UNAVAILABLE", "The service is currently unavailable.", Some("UNAVAILABLE"))
}

pub fn internal() -> FakeAnswer {
    error(500, "INTERNAL", "Internal error encountered.", Some("INTERNAL"))
}

/// The APNs certificate or web push credentials in the Firebase project are wrong.
pub fn third_party_auth_error() -> FakeAnswer {
    error(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", Some("THIRD_PARTY_AUTH_ERROR"))
}

/// The 401 to a bearer token that expired or was never issued.
pub fn unauthenticated() -> FakeAnswer {
    error(
        401,
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other \
         valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        None,
    )
}

/// A field of the message FCM cannot take: a `google.rpc.BadRequest` detail names it.
pub fn bad_field(field: &str, description: &str) -> FakeAnswer {
    let body = json!({"error": {"code": 400, "message": description, "status": "INVALID_ARGUMENT", "details": [
        {"@type": "type.googleapis.com/google.rpc.BadRequest",
         "fieldViolations": [{"field": field, "description": description}]}]}});
    FakeAnswer::json(400, body)
}

/// Google's token endpoint refusal.
pub fn oauth_error(status: u16, error: &str, description: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"error": error, "error_description": description}))
}

/// The public half of [`PRIVATE_KEY`] (DER `RSAPublicKey`), which Google keeps for the key id.
fn public_key() -> Vec<u8> {
    let base64: String = PRIVATE_KEY.lines().filter(|line| !line.starts_with("-----")).collect();
    let der = STANDARD.decode(base64).expect("the fixture is PEM");
    RsaKeyPair::from_pkcs8(&der).expect("the fixture is a PKCS#8 RSA key").public_key().as_ref().to_vec()
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn check_assertion(request: &Recorded, public_key: &[u8]) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/token" {
        return Some(FakeAnswer::text(404, "Not Found"));
    }
    if !request.content_type_is("application/x-www-form-urlencoded") {
        return Some(oauth_error(400, "invalid_request", "Invalid Content-Type"));
    }
    let grant_type = request.form_value("grant_type").unwrap_or_default();
    if grant_type != GRANT_TYPE {
        return Some(oauth_error(400, "unsupported_grant_type", &format!("Invalid grant_type: {grant_type}")));
    }
    let Some(assertion) = request.form_value("assertion") else {
        return Some(oauth_error(400, "invalid_request", "Missing required parameter: assertion"));
    };
    let invalid = |description: &str| Some(oauth_error(400, "invalid_grant", description));
    let parts: Vec<&str> = assertion.split('.').collect();
    let decoded = |part: &str| -> Option<Value> { serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).ok()?).ok() };
    let (Some(header), Some(claims), Some(signature)) = (
        parts.first().and_then(|part| decoded(part)),
        parts.get(1).and_then(|part| decoded(part)),
        parts.get(2).and_then(|part| URL_SAFE_NO_PAD.decode(part).ok()),
    ) else {
        return invalid("Invalid JWT: the assertion is not a JWT.");
    };
    if parts.len() != 3 || header["alg"] != "RS256" || header["kid"] != PRIVATE_KEY_ID {
        return invalid("Invalid JWT Signature.");
    }
    let signed = format!("{}.{}", parts[0], parts[1]);
    if UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, public_key).verify(signed.as_bytes(), &signature).is_err() {
        return invalid("Invalid JWT Signature.");
    }
    if claims["iss"] != CLIENT_EMAIL {
        return invalid("Invalid grant: account not found");
    }
    if claims["scope"] != SCOPE {
        return Some(oauth_error(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided."));
    }
    let called = format!("http://{}{}", request.header("host").unwrap_or_default(), request.path);
    if claims["aud"] != called.as_str() {
        return invalid(&format!("Invalid JWT: Failed audience check. The expected value was {called}"));
    }
    let (Some(iat), Some(exp)) = (claims["iat"].as_u64(), claims["exp"].as_u64()) else {
        return invalid("Invalid JWT: iat and exp are required.");
    };
    let now = now();
    if exp <= iat || exp - iat > 3600 || iat > now + 60 || exp < now {
        return invalid(
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your \
             iat and exp values in the JWT claim.",
        );
    }
    None
}

fn check_send(request: &Recorded, valid_tokens: &HashSet<String>) -> Option<FakeAnswer> {
    let Some(project) = request.path.strip_prefix("/v1/projects/").and_then(|rest| rest.strip_suffix("/messages:send"))
    else {
        return Some(FakeAnswer::text(404, "<!DOCTYPE html><title>Error 404 (Not Found)!!1</title>"));
    };
    if request.method != "POST" {
        return Some(error(405, "INVALID_ARGUMENT", "Method not allowed", None));
    }
    match request.header("authorization").and_then(|value| value.strip_prefix("Bearer ")) {
        Some(token) if valid_tokens.contains(token) => {}
        _ => return Some(unauthenticated()),
    }
    if project != PROJECT_ID {
        return Some(error(
            403,
            "PERMISSION_DENIED",
            &format!(
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudmessaging.googleapis.com/projects/{project}' (or it may not exist)."
            ),
            None,
        ));
    }
    if !request.content_type_is("application/json") {
        return Some(error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.", None));
    }
    let message = &request.json()["message"];
    let Some(token) = message["token"].as_str() else {
        return Some(bad_field("message", "Recipient of the message is not set."));
    };
    if token.is_empty() || !token.chars().all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c)) {
        return Some(error(
            400,
            "INVALID_ARGUMENT",
            "The registration token is not a valid FCM registration token",
            Some("INVALID_ARGUMENT"),
        ));
    }
    if let Some(unknown) = message["notification"]
        .as_object()
        .and_then(|notification| notification.keys().find(|key| !["title", "body", "image"].contains(&key.as_str())))
    {
        return Some(bad_field(
            "message.notification",
            &format!("Invalid JSON payload received. Unknown name \"{unknown}\" at 'message.notification': Cannot find field."),
        ));
    }
    for (index, (key, value)) in message["data"].as_object().into_iter().flatten().enumerate() {
        if !value.is_string() {
            let field = format!("message.data[{index}].value");
            return Some(bad_field(&field, &format!("Invalid value at '{field}' (TYPE_STRING), {value}")));
        }
        if key == "from" || key == "message_type" || key.starts_with("google.") || key.starts_with("gcm.") {
            return Some(bad_field("message.data", &format!("Invalid data payload key: {key}")));
        }
    }
    None
}
