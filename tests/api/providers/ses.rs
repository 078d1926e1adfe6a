use chrono::{NaiveDateTime, TimeDelta, Utc};
use herald::providers::{Channel, ProviderError};
use serde_json::{json, Value};

use super::common::nothing_sent_without;
use super::{delivery, send};
use crate::fakes::aws::{self, Refusal};
use crate::fakes::ses::{self, error, not_verified, too_many_requests, ACCESS_KEY_ID, REGION, SECRET};
use crate::fakes::FakeAnswer;

fn credentials(base_url: &str) -> Value {
    json!({"apiKey": ACCESS_KEY_ID, "secretKey": SECRET, "region": REGION, "from": "orders@acme.io",
           "senderName": "Acme", "baseUrl": base_url})
}

fn email(base_url: &str) -> herald::providers::Delivery {
    delivery("ses", Channel::Email, credentials(base_url))
}

#[tokio::test]
async fn an_email_is_signed_for_the_fakes_host_and_carries_every_field() {
    let fake = ses::start().await;
    let mut email = email(fake.base_url());
    email.overrides = json!({"email": {"replyTo": "help@acme.io", "cc": ["ops@acme.io"], "bcc": "audit@acme.io",
                                       "headers": {"X-Entity-Ref-ID": "A-1"}}});

    let accepted = send(&email).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str(), request.query.as_deref()),
        ("POST", "/v2/email/outbound-emails", None)
    );
    assert!(request.content_type_is("application/json"));
    assert_eq!(request.header("host"), fake.base_url().strip_prefix("http://"));
    let amz_date = request.header("x-amz-date").expect("x-amz-date");
    let signed_at = NaiveDateTime::parse_from_str(amz_date, "%Y%m%dT%H%M%SZ").unwrap().and_utc();
    assert!((Utc::now() - signed_at).abs() < TimeDelta::minutes(1), "{amz_date}");
    let authorization = request.header("authorization").expect("signed");
    assert!(
        authorization.starts_with(&format!(
            "AWS4-HMAC-SHA256 Credential={ACCESS_KEY_ID}/{}/{REGION}/ses/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, Signature=",
            &amz_date[..8]
        )),
        "{authorization}"
    );
    // The fake accepted the signature it recomputed; it is the signature of exactly this request.
    aws::verify(&request, "ses").expect("a valid signature");
    let mut tampered = request.clone();
    tampered.body = request.body.slice(1..);
    assert!(matches!(aws::verify(&tampered, "ses"), Err(Refusal::Mismatch(_))), "the body is signed");
    assert!(matches!(aws::verify(&request, "sns"), Err(Refusal::Mismatch(_))), "the service is in the scope");
    assert!(!authorization.contains(SECRET));

    assert_eq!(
        request.json(),
        json!({
            "FromEmailAddress": "Acme <orders@acme.io>",
            "Destination": {"ToAddresses": ["ada@example.com"], "CcAddresses": ["ops@acme.io"],
                            "BccAddresses": ["audit@acme.io"]},
            "ReplyToAddresses": ["help@acme.io"],
            "Content": {"Simple": {
                "Subject": {"Data": "Your order shipped", "Charset": "UTF-8"},
                "Body": {"Html": {"Data": "<p>Order A-1 shipped</p>", "Charset": "UTF-8"},
                         "Text": {"Data": "Order A-1 shipped", "Charset": "UTF-8"}},
                "Headers": [{"Name": "X-Entity-Ref-ID", "Value": "A-1"}],
            }},
        })
    );
    let id = accepted.provider_message_id.expect("SES's MessageId");
    assert!(id.starts_with("0102019a") && id.ends_with("-000000"), "{id}");
    assert!(accepted.raw.expect("the answer").contains(&id));
}

#[tokio::test]
async fn throttling_and_internal_failures_are_transient() {
    let fake = ses::start().await;
    fake.then(too_many_requests()).then(FakeAnswer::json(
        500,
        json!({"__type": "com.amazonaws.sesv2#InternalFailure", "message": "The request processing has failed because of an unknown error."}),
    ));

    let throttled = send(&email(fake.base_url())).await.unwrap_err();
    assert!(throttled.is_transient(), "{throttled:?}");
    assert_eq!(throttled.retry_after(), None, "SES sends no Retry-After");
    assert!(throttled.to_string().ends_with("TooManyRequestsException: Maximum sending rate exceeded."), "{throttled}");

    let failed = send(&email(fake.base_url())).await.unwrap_err();
    assert!(failed.is_transient(), "{failed:?}");
    assert!(
        failed.to_string().ends_with("InternalFailure: The request processing has failed because of an unknown error."),
        "{failed}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_key_signature_or_scope_misconfigures_the_integration_without_showing_the_secret() {
    let fake = ses::start().await;
    for (change, value, expected) in [
        (
            "secretKey",
            "wrong/Secret+Key",
            "InvalidSignatureException: The request signature we calculated does not match",
        ),
        (
            "apiKey",
            "AKIAUNKNOWN000000000",
            "UnrecognizedClientException: The security token included in the request is invalid.",
        ),
        ("region", "us-east-1", "InvalidSignatureException: Credential should be scoped to a valid region."),
    ] {
        let mut refused = credentials(fake.base_url());
        refused[change] = json!(value);
        let err = send(&delivery("ses", Channel::Email, refused)).await.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{change}: {err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with("the integration is misconfigured: ses: HTTP 403 Forbidden from 127.0.0.1: "),
            "{text}"
        );
        assert!(text.contains(expected), "{change}: {text}");
        assert!(!text.contains(SECRET) && !text.contains("wrong/Secret+Key"), "{text}");
    }
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn a_rejected_email_is_permanent_with_ses_own_words() {
    let fake = ses::start().await;
    fake.then(not_verified()).then(error(400, "AccountSuspendedException", "Your account has been suspended."));

    let err = send(&email(fake.base_url())).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(
        err.to_string().ends_with(
            "MessageRejected: Email address is not verified. The following identities failed the check in region \
             EU-WEST-1: ada@example.com"
        ),
        "{err}"
    );
    let err = send(&email(fake.base_url())).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("AccountSuspendedException: Your account has been suspended."), "{err}");
}

#[tokio::test]
async fn without_a_key_a_secret_a_region_or_a_sender_nothing_is_sent() {
    let fake = ses::start().await;
    nothing_sent_without(&fake, &email(fake.base_url()), &["apiKey", "secretKey", "region", "from"]).await;
}
