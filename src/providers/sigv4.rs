//! AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html),
//! by hand on `hmac`/`sha2`, for the `ses` and `sns` adapters:
//! - canonical request: method, URI path (each segment URI-encoded again, as every service but S3 wants),
//!   query pairs URI-encoded and sorted, the signed headers lowercased, trimmed and sorted (always `host`,
//!   as the request will carry it, and `x-amz-date`), their names joined by `;`, and hex SHA-256 of the
//!   body;
//! - string to sign: `AWS4-HMAC-SHA256\n<amz date>\n<yyyymmdd>/<region>/<service>/aws4_request\n<hex
//!   SHA-256 of the canonical request>`;
//! - key: HMAC-SHA256 chain `"AWS4" + secret` → date → region → service → `aws4_request`;
//! - `Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<scope>, SignedHeaders=<names>, Signature=<hex>`.
//!
//! The integration names the key with `apiKey` (the access key id), `secretKey` and `region`; a `baseUrl`
//! changes where the request goes (and so the signed `host`), never the scope.

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use reqwest::{Client, RequestBuilder, Url};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::account::required;
use super::endpoint::endpoint;
use super::http::HttpAnswer;
use super::registry::Http;
use super::ProviderError;

const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// An AWS key, for one region and service.
pub(crate) struct AwsKey<'a> {
    /// The adapter, for its errors.
    pub(crate) provider_id: &'a str,
    pub(crate) access_key_id: &'a str,
    pub(crate) secret: &'a str,
    pub(crate) region: &'a str,
    pub(crate) service: &'a str,
}

/// A request as it is signed.
pub(crate) struct Signable<'a> {
    pub(crate) method: &'a str,
    pub(crate) url: &'a Url,
    /// Headers signed besides `host` and `x-amz-date` (`content-type`, `x-amz-content-sha256`…).
    pub(crate) headers: &'a [(&'a str, &'a str)],
    pub(crate) body: &'a [u8],
}

impl<'a> AwsKey<'a> {
    /// The key in the integration's `apiKey`, `secretKey` and `region`, each required.
    pub(crate) fn of(provider_id: &'a str, credentials: &'a Value, service: &'a str) -> Result<Self, ProviderError> {
        let required = |key: &str| required(provider_id, credentials, key);
        let key = Self {
            provider_id,
            access_key_id: required("apiKey")?,
            secret: required("secretKey")?,
            region: required("region")?,
            service,
        };
        // The region names the default host and the scope: nothing but an AWS region name belongs there.
        if !key.region.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-') {
            return Err(ProviderError::misconfigured(format!(
                "{provider_id} region `{}` is not an AWS region name such as `us-east-1`",
                key.region
            )));
        }
        Ok(key)
    }

    /// Signs and sends a `POST` of `body` to `path` at the integration's `baseUrl`, else at
    /// `https://{host_prefix}.{region}.amazonaws.com`.
    pub(crate) async fn send(
        &self,
        http: &Http,
        credentials: &Value,
        host_prefix: &str,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<HttpAnswer, ProviderError> {
        let api = format!("https://{host_prefix}.{}.amazonaws.com", self.region);
        let url = endpoint(self.provider_id, credentials, &api, path, &http.settings)?;
        http.fetch(self.provider_id, self.post(&http.client, url, content_type, body, Utc::now())).await
    }

    /// A signed `POST` of `body` to `url`: `content-type`, `x-amz-date` and `authorization` set.
    fn post(&self, client: &Client, url: Url, content_type: &str, body: Vec<u8>, now: DateTime<Utc>) -> RequestBuilder {
        let amz_date = now.format("%Y%m%dT%H%M%SZ").to_string();
        let headers = [("content-type", content_type)];
        let authorization =
            self.authorization(&Signable { method: "POST", url: &url, headers: &headers, body: &body }, &amz_date);
        client
            .post(url)
            .header("content-type", content_type)
            .header("x-amz-date", amz_date)
            .header("authorization", authorization)
            .body(body)
    }

    /// The `Authorization` header for `request` at `amz_date` (`20150830T123600Z`).
    pub(crate) fn authorization(&self, request: &Signable, amz_date: &str) -> String {
        let (canonical, signed_headers) = canonical_request(request, amz_date);
        let date = amz_date.get(..8).unwrap_or(amz_date);
        let scope = format!("{date}/{}/{}/aws4_request", self.region, self.service);
        let string_to_sign = format!("{ALGORITHM}\n{amz_date}\n{scope}\n{}", hex::encode(Sha256::digest(canonical)));
        let signature = hex::encode(hmac(&self.signing_key(date), &string_to_sign));
        format!(
            "{ALGORITHM} Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
            self.access_key_id
        )
    }

    fn signing_key(&self, date: &str) -> Vec<u8> {
        let date_key = hmac(format!("AWS4{}", self.secret).as_bytes(), date);
        let region_key = hmac(&date_key, self.region);
        let service_key = hmac(&region_key, self.service);
        hmac(&service_key, "aws4_request")
    }
}

/// The canonical request and its signed header names.
fn canonical_request(request: &Signable, amz_date: &str) -> (String, String) {
    let url = request.url;
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    let mut headers: Vec<(String, String)> = [("host", host.as_str()), ("x-amz-date", amz_date)]
        .iter()
        .chain(request.headers)
        .map(|(name, value)| (name.to_ascii_lowercase(), value.split_whitespace().collect::<Vec<_>>().join(" ")))
        .collect();
    headers.sort();
    let canonical_headers: String = headers.iter().map(|(name, value)| format!("{name}:{value}\n")).collect();
    let signed_headers = headers.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>().join(";");

    let mut query: Vec<(String, String)> =
        url.query_pairs().map(|(key, value)| (uri_encode(&key, false), uri_encode(&value, false))).collect();
    query.sort();
    let query = query.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join("&");

    let path = if url.path().is_empty() { "/" } else { url.path() };
    let canonical = format!(
        "{}\n{}\n{query}\n{canonical_headers}\n{signed_headers}\n{}",
        request.method,
        uri_encode(path, true),
        hex::encode(Sha256::digest(request.body))
    );
    (canonical, signed_headers)
}

/// AWS's URI encoding: every byte but `A-Za-z0-9-_.~` (and `/` when `keep_slash`) as `%XX`.
fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) || (keep_slash && byte == b'/') {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The key of AWS's published examples and SigV4 test suite.
    const SUITE: AwsKey<'static> = AwsKey {
        provider_id: "test",
        access_key_id: "AKIDEXAMPLE",
        secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        region: "us-east-1",
        service: "service",
    };
    const SUITE_DATE: &str = "20150830T123600Z";
    const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn signature(method: &str, url: &str, key: &AwsKey, headers: &[(&str, &str)]) -> String {
        let url = Url::parse(url).unwrap();
        let header = key.authorization(&Signable { method, url: &url, headers, body: b"" }, SUITE_DATE);
        header.rsplit_once("Signature=").unwrap().1.to_owned()
    }

    #[test]
    fn the_test_suite_get_vanilla_vector() {
        let url = Url::parse("https://example.amazonaws.com/").unwrap();
        let request = Signable { method: "GET", url: &url, headers: &[], body: b"" };
        assert_eq!(
            SUITE.authorization(&request, SUITE_DATE),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        // The documented canonical request, to the byte.
        assert_eq!(
            canonical_request(&request, SUITE_DATE).0,
            format!("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:{SUITE_DATE}\n\nhost;x-amz-date\n{EMPTY_SHA256}")
        );
    }

    #[test]
    fn the_test_suite_post_and_query_order_vectors() {
        assert_eq!(
            signature("POST", "https://example.amazonaws.com/", &SUITE, &[]),
            "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        );
        // Fails unless the query pairs are sorted.
        assert_eq!(
            signature("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1", &SUITE, &[]),
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        );
    }

    #[test]
    fn the_documented_iam_list_users_example() {
        let iam = AwsKey { service: "iam", ..SUITE };
        let url = Url::parse("https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08").unwrap();
        // Mixed case and doubled spaces: the canonical form lowercases the name and collapses the value.
        let headers = [("Content-Type", "application/x-www-form-urlencoded;  charset=utf-8")];
        let request = Signable { method: "GET", url: &url, headers: &headers, body: b"" };
        let (canonical, signed_headers) = canonical_request(&request, SUITE_DATE);
        assert_eq!(signed_headers, "content-type;host;x-amz-date");
        assert_eq!(
            hex::encode(Sha256::digest(canonical)),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59"
        );
        assert_eq!(
            hex::encode(iam.signing_key("20150830")),
            "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9"
        );
        assert_eq!(
            iam.authorization(&request, SUITE_DATE),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, \
             Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
        );
    }

    #[test]
    fn the_signed_host_is_the_one_requested_port_included() {
        let url = Url::parse("http://127.0.0.1:4566/v2/email/outbound-emails?b=x%20y&a=1").unwrap();
        let (canonical, _) =
            canonical_request(&Signable { method: "POST", url: &url, headers: &[], body: b"{}" }, SUITE_DATE);
        let lines: Vec<&str> = canonical.lines().collect();
        assert_eq!(lines[1..4], ["/v2/email/outbound-emails", "a=1&b=x%20y", "host:127.0.0.1:4566"]);
        // The region and the service are in the scope, so another one signs differently.
        let here = signature("GET", "https://example.amazonaws.com/", &SUITE, &[]);
        assert_ne!(
            here,
            signature("GET", "https://example.amazonaws.com/", &AwsKey { region: "eu-west-1", ..SUITE }, &[])
        );
        assert_ne!(here, signature("GET", "https://example.amazonaws.com/", &AwsKey { service: "sns", ..SUITE }, &[]));
    }

    #[test]
    fn the_key_comes_from_the_integration_and_the_region_is_checked() {
        let credentials = serde_json::json!({"apiKey": "AKID", "secretKey": "s3cret", "region": "eu-west-1"});
        let key = AwsKey::of("ses", &credentials, "ses").unwrap();
        assert_eq!((key.access_key_id, key.secret, key.region, key.service), ("AKID", "s3cret", "eu-west-1", "ses"));
        for (broken, named) in [
            (serde_json::json!({"secretKey": "s3cret", "region": "eu-west-1"}), "`apiKey`"),
            (serde_json::json!({"apiKey": "AKID", "region": "eu-west-1"}), "`secretKey`"),
            (serde_json::json!({"apiKey": "AKID", "secretKey": "s3cret", "region": ""}), "`region`"),
            (serde_json::json!({"apiKey": "AKID", "secretKey": "s3cret", "region": "evil.com/x"}), "`evil.com/x`"),
        ] {
            let err = AwsKey::of("ses", &broken, "ses").err().expect("refused");
            assert!(err.is_integration_fault() && err.to_string().contains(named), "{err}");
        }
    }
}
