//! Amazon SNS `Publish` to a phone number through the Query API, `POST /`
//! (https://docs.aws.amazon.com/sns/latest/api/API_Publish.html): SigV4 for service `sns` (checked by
//! [`super::aws`]), a form body with `Action=Publish`, `Version=2010-03-31`, `PhoneNumber` (E.164),
//! `Message` and `MessageAttributes.entry.N.{Name, Value.DataType, Value.StringValue}`. Success: XML
//! `PublishResponse/PublishResult/MessageId`; errors: XML `ErrorResponse/Error/{Type, Code, Message}`.

use super::aws::{self, Refusal, UNKNOWN_KEY};
use super::{FakeAnswer, FakeProvider, Recorded};

pub use super::aws::{ACCESS_KEY_ID, REGION, SECRET};

const NAMESPACE: &str = "http://sns.amazonaws.com/doc/2010-03-31/";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| {
        xml(
            200,
            format!(
                "<PublishResponse xmlns=\"{NAMESPACE}\">\n  <PublishResult>\n    <MessageId>{}</MessageId>\n  \
                 </PublishResult>\n  <ResponseMetadata>\n    <RequestId>{}</RequestId>\n  </ResponseMetadata>\n\
                 </PublishResponse>\n",
                aws::request_id(),
                aws::request_id()
            ),
        )
    })
    .await
}

fn xml(status: u16, body: String) -> FakeAnswer {
    FakeAnswer { status, headers: vec![("content-type".into(), "text/xml".into())], body }
}

/// A Query API error (`Type` is `Sender` for the caller's faults, `Receiver` for AWS's own).
pub fn error(status: u16, code: &str, message: &str) -> FakeAnswer {
    let kind = if status >= 500 { "Receiver" } else { "Sender" };
    let message = message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    xml(
        status,
        format!(
            "<ErrorResponse xmlns=\"{NAMESPACE}\">\n  <Error>\n    <Type>{kind}</Type>\n    <Code>{code}</Code>\n    \
             <Message>{message}</Message>\n  </Error>\n  <RequestId>{}</RequestId>\n</ErrorResponse>\n",
            aws::request_id()
        ),
    )
}

fn refused(refusal: Refusal) -> FakeAnswer {
    match refusal {
        Refusal::Missing => error(403, "MissingAuthenticationToken", "Request is missing Authentication Token"),
        Refusal::Incomplete(message) => error(403, "IncompleteSignature", &message),
        Refusal::UnknownKey => error(403, "InvalidClientTokenId", UNKNOWN_KEY),
        Refusal::Mismatch(message) => error(403, "SignatureDoesNotMatch", &message),
    }
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/" {
        return Some(error(404, "UnknownOperation", "The requested resource is not found."));
    }
    if let Err(refusal) = aws::verify(request, "sns") {
        return Some(refused(refusal));
    }
    let invalid = |message: String| Some(error(400, "InvalidParameter", &message));
    if !request.content_type_is("application/x-www-form-urlencoded") {
        return Some(error(400, "MalformedQueryString", "The request must be form-encoded."));
    }
    let action = request.form_value("Action").unwrap_or_default();
    if action != "Publish" {
        return Some(error(400, "InvalidAction", &format!("The action {action} is not valid for this web service.")));
    }
    if request.form_value("Version").as_deref() != Some("2010-03-31") {
        return Some(error(400, "InvalidParameterValue", "Could not find operation Publish for the given version."));
    }
    let Some(phone) = request.form_value("PhoneNumber") else {
        return invalid("Invalid parameter: TopicArn or TargetArn Reason: no value for required parameter".into());
    };
    let digits = phone.strip_prefix('+').unwrap_or_default();
    if digits.is_empty() || digits.len() > 15 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return invalid(format!("Invalid parameter: PhoneNumber Reason: {phone} is not valid to publish"));
    }
    if request.form_value("Message").is_none_or(|message| message.is_empty()) {
        return Some(error(
            400,
            "ValidationError",
            "1 validation error detected: Value null at 'message' failed to satisfy constraint: Member must not be null",
        ));
    }
    for entry in 1.. {
        let field = |name: &str| request.form_value(&format!("MessageAttributes.entry.{entry}.{name}"));
        let Some(name) = field("Name") else { break };
        let (data_type, value) = (field("Value.DataType"), field("Value.StringValue"));
        if data_type.as_deref() != Some("String") || value.is_none() {
            return Some(error(
                400,
                "ParameterValueInvalid",
                &format!("The message attribute '{name}' must contain non-empty message attribute value and type."),
            ));
        }
        if name == "AWS.SNS.SMS.SMSType" && !matches!(value.as_deref(), Some("Transactional" | "Promotional")) {
            return invalid(format!("Invalid parameter: MessageAttributes Reason: {name} has an invalid value"));
        }
    }
    None
}
