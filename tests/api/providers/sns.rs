use herald::providers::{Channel, Delivery, ProviderError};
use serde_json::{json, Value};

use super::common::{self, nothing_sent_without, pairs};
use super::{delivery, send};
use crate::fakes::aws::{self, Refusal};
use crate::fakes::sns::{self, error, ACCESS_KEY_ID, REGION, SECRET};

fn credentials(base_url: &str) -> Value {
    json!({"apiKey": ACCESS_KEY_ID, "secretKey": SECRET, "region": REGION, "baseUrl": base_url})
}

fn sms(base_url: &str) -> Delivery {
    let mut sms = common::sms("sns", credentials(base_url));
    sms.content = "Order A-1 shipped & on its way".to_owned();
    sms
}

#[tokio::test]
async fn an_sms_is_published_signed_for_sns_with_every_field() {
    let fake = sns::start().await;

    let accepted = send(&sms(fake.base_url())).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/"));
    assert!(request.content_type_is("application/x-www-form-urlencoded"));
    let amz_date = request.header("x-amz-date").expect("x-amz-date");
    assert!(
        request.header("authorization").unwrap().starts_with(&format!(
            "AWS4-HMAC-SHA256 Credential={ACCESS_KEY_ID}/{}/{REGION}/sns/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, Signature=",
            &amz_date[..8]
        )),
        "{request:?}"
    );
    aws::verify(&request, "sns").expect("a valid signature");
    assert!(matches!(aws::verify(&request, "ses"), Err(Refusal::Mismatch(_))), "the service is in the scope");
    assert_eq!(
        request.form(),
        pairs(&[
            ("Action", "Publish"),
            ("Version", "2010-03-31"),
            ("PhoneNumber", "+15550100"),
            ("Message", "Order A-1 shipped & on its way"),
            ("MessageAttributes.entry.1.Name", "AWS.SNS.SMS.SMSType"),
            ("MessageAttributes.entry.1.Value.DataType", "String"),
            ("MessageAttributes.entry.1.Value.StringValue", "Transactional"),
        ])
    );
    let id = accepted.provider_message_id.expect("the MessageId");
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    assert!(accepted.raw.unwrap().contains(&format!("<MessageId>{id}</MessageId>")));
}

#[tokio::test]
async fn a_sender_goes_as_sender_id_or_origination_number() {
    let fake = sns::start().await;
    let mut named = sms(fake.base_url());
    named.overrides = json!({"sms": {"from": "ACME"}});
    send(&named).await.expect("accepted");
    let mut numbered = sms(fake.base_url());
    numbered.credentials["from"] = json!("+15550199");
    send(&numbered).await.expect("accepted");

    let requests = fake.requests();
    let sender = |index: usize| {
        let request = &requests[index];
        ["Name", "Value.DataType", "Value.StringValue"]
            .map(|field| request.form_value(&format!("MessageAttributes.entry.2.{field}")).unwrap_or_default())
    };
    assert_eq!(sender(0), ["AWS.SNS.SMS.SenderID", "String", "ACME"]);
    assert_eq!(sender(1), ["AWS.MM.SMS.OriginationNumber", "String", "+15550199"]);
}

#[tokio::test]
async fn throttling_and_internal_errors_are_transient() {
    let fake = sns::start().await;
    fake.then(error(400, "Throttling", "Rate exceeded")).then(error(429, "Throttled", "Rate exceeded")).then(error(
        500,
        "InternalError",
        "Request could not be completed",
    ));

    for expected in
        ["Throttling: Rate exceeded", "Throttled: Rate exceeded", "InternalError: Request could not be completed"]
    {
        let err = send(&sms(fake.base_url())).await.unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        assert!(err.to_string().ends_with(expected), "{err}");
    }
}

#[tokio::test]
async fn a_refused_key_or_signature_misconfigures_the_integration_without_showing_the_secret() {
    let fake = sns::start().await;
    for (change, value, expected) in [
        ("secretKey", "wrong/Secret+Key", "SignatureDoesNotMatch: The request signature we calculated does not match"),
        (
            "apiKey",
            "AKIAUNKNOWN000000000",
            "InvalidClientTokenId: The security token included in the request is invalid.",
        ),
    ] {
        let mut refused = credentials(fake.base_url());
        refused[change] = json!(value);
        let err = send(&delivery("sns", Channel::Sms, refused)).await.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{change}: {err:?}");
        let text = err.to_string();
        assert!(text.contains("sns: HTTP 403 Forbidden from 127.0.0.1: ") && text.contains(expected), "{text}");
        assert!(!text.contains(SECRET) && !text.contains("wrong/Secret+Key"), "{text}");
    }
    fake.then(error(
        403,
        "AuthorizationError",
        "User: arn:aws:iam::123456789012:user/herald is not authorized to perform: SNS:Publish",
    ));
    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
}

#[tokio::test]
async fn an_opted_out_or_invalid_number_is_permanent_with_sns_own_words() {
    let fake = sns::start().await;
    fake.then(error(400, "OptedOut", "Phone number is opted out"));
    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("OptedOut: Phone number is opted out"), "{err}");

    let mut local = sms(fake.base_url());
    local.to.phone = Some("5550100".to_owned());
    let err = send(&local).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(
        err.to_string()
            .ends_with("InvalidParameter: Invalid parameter: PhoneNumber Reason: 5550100 is not valid to publish"),
        "{err}"
    );
}

#[tokio::test]
async fn without_a_key_a_secret_or_a_region_nothing_is_sent() {
    let fake = sns::start().await;
    nothing_sent_without(&fake, &sms(fake.base_url()), &["apiKey", "secretKey", "region"]).await;
}
