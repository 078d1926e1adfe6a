//! What AWS checks of a SigV4-signed request, shared by the SES and SNS fakes: the `Authorization`
//! header's parts, the access key id, the credential scope (date, region, service, terminator), that
//! `host` and `x-amz-date` are signed, that `x-amz-date` is within 15 minutes of now, and the signature
//! itself, recomputed here from the request as received with the test secret. Each fake words the
//! refusal in its own protocol (JSON for SES v2, Query XML for SNS).

use chrono::{NaiveDateTime, TimeDelta, Utc};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::Recorded;

pub const ACCESS_KEY_ID: &str = "AKIAHERALDFAKE000001";
pub const SECRET: &str = "herald/Fake+SecretKey/0000000000000000000";
/// The region the fakes stand for, as if they were `{service}.eu-west-1.amazonaws.com`.
pub const REGION: &str = "eu-west-1";

/// Why AWS refuses a request before looking at what it asks.
#[derive(Debug)]
pub enum Refusal {
    /// No `Authorization` header at all.
    Missing,
    /// An `Authorization` header AWS cannot read, or one that leaves `host` or `x-amz-date` unsigned.
    Incomplete(String),
    /// An access key id AWS does not know.
    UnknownKey,
    /// A signature that does not match, a wrong scope or a stale date.
    Mismatch(String),
}

pub const SIGNATURE_MISMATCH: &str = "The request signature we calculated does not match the signature you \
provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";
pub const UNKNOWN_KEY: &str = "The security token included in the request is invalid.";

/// Whether `request` is signed for `service` in [`REGION`] with the test key.
pub fn verify(request: &Recorded, service: &str) -> Result<(), Refusal> {
    let authorization = request.header("authorization").ok_or(Refusal::Missing)?;
    let incomplete = |what: &str| Refusal::Incomplete(format!("{what} Authorization={authorization}"));
    let parts = authorization
        .strip_prefix("AWS4-HMAC-SHA256 ")
        .ok_or_else(|| incomplete("Unsupported AWS 'algorithm' in the Authorization header."))?;
    let part = |name: &str| parts.split(',').map(str::trim).find_map(|part| part.strip_prefix(name)?.strip_prefix('='));
    let (credential, signed_headers, signature) = match (part("Credential"), part("SignedHeaders"), part("Signature")) {
        (Some(credential), Some(signed), Some(signature)) => (credential, signed, signature),
        _ => return Err(incomplete("Authorization header requires 'Credential', 'Signature' and 'SignedHeaders'.")),
    };
    let scope: Vec<&str> = credential.split('/').collect();
    let [key_id, date, region, scope_service, terminator] = scope[..] else {
        return Err(incomplete("Credential must have exactly 5 slash-delimited elements."));
    };
    if key_id != ACCESS_KEY_ID {
        return Err(Refusal::UnknownKey);
    }
    let signed: Vec<&str> = signed_headers.split(';').collect();
    if !signed.contains(&"host") {
        return Err(incomplete("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."));
    }
    if !signed.contains(&"x-amz-date") {
        return Err(incomplete("'X-Amz-Date' must be a 'SignedHeader' in the AWS Authorization."));
    }
    let amz_date = request.header("x-amz-date").unwrap_or_default();
    let at = NaiveDateTime::parse_from_str(amz_date, "%Y%m%dT%H%M%SZ")
        .map_err(|_| {
            incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
        })?
        .and_utc();
    let mismatch = |message: String| Err(Refusal::Mismatch(message));
    if date != &amz_date[..8] {
        return mismatch(format!(
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '{date}' != '{}', from '{amz_date}'.",
            &amz_date[..8]
        ));
    }
    if region != REGION {
        return mismatch("Credential should be scoped to a valid region.".into());
    }
    if scope_service != service {
        return mismatch(format!("Credential should be scoped to correct service: '{service}'."));
    }
    if terminator != "aws4_request" {
        return mismatch(format!(
            "Credential should be scoped with a valid terminator: 'aws4_request', not '{terminator}'."
        ));
    }
    let now = Utc::now();
    if (now - at).abs() > TimeDelta::minutes(15) {
        let now = now.format("%Y%m%dT%H%M%SZ");
        return mismatch(format!("Signature expired: {amz_date} is now earlier than {now} ({now} - 15 min.)"));
    }
    let expected = hex::encode(mac(&signing_key(date, service), &string_to_sign(request, &signed, credential)));
    if signature != expected {
        return mismatch(SIGNATURE_MISMATCH.into());
    }
    Ok(())
}

/// The string AWS signs, from the request as it arrived.
fn string_to_sign(request: &Recorded, signed: &[&str], credential: &str) -> String {
    let mut canonical = format!("{}\n{}\n", request.method, encode(&request.path, "/"));
    let mut query: Vec<(String, String)> =
        form_urlencoded::parse(request.query.as_deref().unwrap_or_default().as_bytes())
            .map(|(name, value)| (encode(&name, ""), encode(&value, "")))
            .collect();
    query.sort();
    let query: Vec<String> = query.into_iter().map(|(name, value)| format!("{name}={value}")).collect();
    canonical.push_str(&query.join("&"));
    canonical.push('\n');
    for name in signed {
        let values: Vec<String> = request
            .headers
            .get_all(*name)
            .iter()
            .map(|value| value.to_str().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        canonical.push_str(&format!("{name}:{}\n", values.join(",")));
    }
    canonical.push_str(&format!("\n{}\n{}", signed.join(";"), hex::encode(Sha256::digest(&request.body))));
    let scope = credential.split_once('/').map(|(_, scope)| scope).unwrap_or_default();
    format!(
        "AWS4-HMAC-SHA256\n{}\n{scope}\n{}",
        request.header("x-amz-date").unwrap_or_default(),
        hex::encode(Sha256::digest(canonical.as_bytes()))
    )
}

fn signing_key(date: &str, service: &str) -> Vec<u8> {
    [date, REGION, service, "aws4_request"]
        .iter()
        .fold(format!("AWS4{SECRET}").into_bytes(), |key, part| mac(&key, part))
}

fn mac(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// RFC 3986 encoding as AWS canonicalises: unreserved characters and `keep` as they are.
fn encode(text: &str, keep: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (byte as char).to_string(),
            _ if keep.as_bytes().contains(&byte) => (byte as char).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// A request id in AWS's shape.
pub fn request_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
