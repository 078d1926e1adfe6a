//! APNs' `POST /3/device/<token>` with token authentication
//! (https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns),
//! served as HTTP/2 over plain TCP (h2c) on loopback; an HTTP/1.1 request is refused, as APNs only
//! speaks HTTP/2. It checks what APNs checks:
//! - the provider token: `bearer <JWT>` with header `{"alg": "ES256", "kid": KEY_ID}` and claims
//!   `{"iss": TEAM_ID, "iat"}`, the signature verified with the public half of [`KEY`], and `iat` within the
//!   hour (403 `MissingProviderToken`, `InvalidProviderToken`, `ExpiredProviderToken`);
//! - `apns-topic` (the bundle id), `apns-push-type`, `apns-priority`, `apns-expiration`,
//!   `apns-collapse-id` (at most 64 bytes) and `apns-id` (a UUID) when present;
//! - the device token: hex (400 `BadDeviceToken`), and [`UNREGISTERED`] is one whose app was removed
//!   (410 `Unregistered` with a timestamp);
//! - the payload: not empty, at most 4 KiB (`PayloadEmpty`, 413 `PayloadTooLarge`).
//!
//! Success: `200`, an empty body and the `apns-id` header (the request's, else a new one). Errors:
//! `{"reason"}`.

use std::sync::LazyLock;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::Version;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{
    EcdsaKeyPair, KeyPair, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING,
};
use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const TEAM_ID: &str = "HRLDTEAM01";
pub const KEY_ID: &str = "HRLDKEY001";
pub const BUNDLE_ID: &str = "io.herald.orders";
/// A device token whose app was uninstalled.
pub const UNREGISTERED: &str = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e";

/// A P-256 signing key as Apple issues it: the `.p8` file's PEM text, and the public half APNs keeps.
pub struct SigningKey {
    pub p8: String,
    public: Vec<u8>,
}

impl SigningKey {
    pub fn generate() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("a new P-256 key");
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).expect("its pair");
        let encoded = STANDARD.encode(pkcs8.as_ref());
        let lines: Vec<&str> = encoded.as_bytes().chunks(64).map(|line| std::str::from_utf8(line).unwrap()).collect();
        Self {
            p8: format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", lines.join("\n")),
            public: pair.public_key().as_ref().to_vec(),
        }
    }
}

/// The team's key (made once per test run): the one the fake verifies provider tokens with.
pub static KEY: LazyLock<SigningKey> = LazyLock::new(SigningKey::generate);

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |request| FakeAnswer {
        status: 200,
        headers: vec![(
            "apns-id".into(),
            request.header("apns-id").map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned),
        )],
        body: String::new(),
    })
    .await
}

pub fn error(status: u16, reason: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"reason": reason}))
}

/// 410 for a token that is no longer valid, with when APNs learned it (milliseconds).
pub fn unregistered() -> FakeAnswer {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    FakeAnswer::json(410, json!({"reason": "Unregistered", "timestamp": now - 86_400_000}))
}

pub fn expired_provider_token() -> FakeAnswer {
    error(403, "ExpiredProviderToken")
}

/// 429: too many notifications to one device token.
pub fn too_many_requests() -> FakeAnswer {
    error(429, "TooManyRequests")
}

/// A device token as iOS hands them out: 32 random bytes in hex.
pub fn device_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// How many different provider tokens the requests carried.
pub fn distinct_provider_tokens(fake: &FakeProvider) -> usize {
    fake.requests()
        .iter()
        .filter_map(|request| request.header("authorization").map(str::to_owned))
        .collect::<std::collections::HashSet<_>>()
        .len()
}

/// The decoded header and claims of a request's provider token.
pub fn provider_token(request: &Recorded) -> (Value, Value) {
    let jwt = request.header("authorization").and_then(|value| value.strip_prefix("bearer ")).expect("a bearer token");
    let part = |index: usize| -> Value {
        let part = jwt.split('.').nth(index).expect("three parts");
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("JSON")
    };
    (part(0), part(1))
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.version != Version::HTTP_2 {
        return Some(FakeAnswer::text(505, "APNs requires HTTP/2"));
    }
    if request.method != "POST" {
        return Some(error(405, "MethodNotAllowed"));
    }
    let Some(token) = request.path.strip_prefix("/3/device/") else {
        return Some(error(404, "BadPath"));
    };
    if token.is_empty() {
        return Some(error(400, "MissingDeviceToken"));
    }
    if let Err(reason) = verify_provider_token(request) {
        return Some(error(403, reason));
    }
    match request.header("apns-topic") {
        None => return Some(error(400, "MissingTopic")),
        Some(topic) if topic != BUNDLE_ID => return Some(error(400, "TopicDisallowed")),
        Some(_) => {}
    }
    let push_types = ["alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity"];
    if !request.header("apns-push-type").is_some_and(|push_type| push_types.contains(&push_type)) {
        return Some(error(400, "InvalidPushType"));
    }
    if request.header("apns-priority").is_some_and(|priority| !["1", "5", "10"].contains(&priority)) {
        return Some(error(400, "BadPriority"));
    }
    if request.header("apns-expiration").is_some_and(|at| at.parse::<u64>().is_err()) {
        return Some(error(400, "BadExpirationDate"));
    }
    if request.header("apns-collapse-id").is_some_and(|id| id.len() > 64) {
        return Some(error(400, "BadCollapseId"));
    }
    if request.header("apns-id").is_some_and(|id| uuid::Uuid::parse_str(id).is_err()) {
        return Some(error(400, "BadMessageId"));
    }
    if !token.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Some(error(400, "BadDeviceToken"));
    }
    if request.body.is_empty() {
        return Some(error(400, "PayloadEmpty"));
    }
    if request.body.len() > 4096 {
        return Some(error(413, "PayloadTooLarge"));
    }
    if token == UNREGISTERED {
        return Some(unregistered());
    }
    None
}

/// Why APNs refuses the request's provider token, if it does.
fn verify_provider_token(request: &Recorded) -> Result<(), &'static str> {
    let value = request.header("authorization").ok_or("MissingProviderToken")?;
    let jwt = value.strip_prefix("bearer ").ok_or("InvalidProviderToken")?;
    let (signing_input, signature) = jwt.rsplit_once('.').ok_or("InvalidProviderToken")?;
    let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| "InvalidProviderToken")?;
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &KEY.public)
        .verify(signing_input.as_bytes(), &signature)
        .map_err(|_| "InvalidProviderToken")?;
    let (header, claims) = provider_token(request);
    if header != json!({"alg": "ES256", "kid": KEY_ID}) || claims["iss"] != TEAM_ID {
        return Err("InvalidProviderToken");
    }
    let issued_at = claims["iat"].as_u64().ok_or("InvalidProviderToken")?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    if issued_at > now + 60 {
        return Err("InvalidProviderToken");
    }
    if now - issued_at > 3600 {
        return Err("ExpiredProviderToken");
    }
    Ok(())
}
