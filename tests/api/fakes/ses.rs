//! Amazon SES v2 `SendEmail`, `POST /v2/email/outbound-emails`
//! (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html): SigV4 for service `ses`
//! (checked by [`super::aws`]), JSON with `Content` and a destination; `200 {"MessageId"}`. Errors name
//! their type in `x-amzn-ErrorType` (AWS's own refusals with a `:url` suffix) and carry `{"message"}`.
//! The same origin serves the SNS topic that carries SES's events back (see [`super::sns_topic`]).

use serde_json::{json, Value};

use super::aws::{self, Refusal, UNKNOWN_KEY};
use super::{FakeAnswer, FakeProvider, Recorded};

pub use super::aws::{ACCESS_KEY_ID, REGION, SECRET};

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| {
        let id = format!("0102019a{}-{}-000000", &aws::request_id()[..8], aws::request_id());
        FakeAnswer::json(200, json!({"MessageId": id})).with_header("x-amzn-requestid", &aws::request_id())
    })
    .await
}

/// An SES v2 error: its type in `x-amzn-ErrorType`, its text in `{"message"}`.
pub fn error(status: u16, error_type: &str, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"message": message}))
        .with_header("x-amzn-errortype", error_type)
        .with_header("x-amzn-requestid", &aws::request_id())
}

/// The 429 SES answers above the account's sending rate.
pub fn too_many_requests() -> FakeAnswer {
    error(429, "TooManyRequestsException", "Maximum sending rate exceeded.")
}

/// The 400 SES answers in the sandbox for an unverified recipient.
pub fn not_verified() -> FakeAnswer {
    error(
        400,
        "MessageRejected",
        "Email address is not verified. The following identities failed the check in region EU-WEST-1: ada@example.com",
    )
}

fn refused(refusal: Refusal) -> FakeAnswer {
    let coral = |name: &str| format!("{name}:http://internal.amazon.com/coral/com.amazon.coral.service/");
    match refusal {
        Refusal::Missing => error(403, &coral("MissingAuthenticationTokenException"), "Missing Authentication Token"),
        Refusal::Incomplete(message) => error(403, &coral("IncompleteSignatureException"), &message),
        Refusal::UnknownKey => error(403, &coral("UnrecognizedClientException"), UNKNOWN_KEY),
        Refusal::Mismatch(message) => error(403, &coral("InvalidSignatureException"), &message),
    }
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if let Some(answer) = super::sns_topic::serve(request) {
        return Some(answer);
    }
    if request.method != "POST" || request.path != "/v2/email/outbound-emails" {
        return Some(error(404, "UnknownOperationException", ""));
    }
    if let Err(refusal) = aws::verify(request, "ses") {
        return Some(refused(refusal));
    }
    let bad = |message: &str| Some(error(400, "BadRequestException", message));
    if !request.content_type_is("application/json") {
        return bad("Unable to parse the request body: it must be JSON.");
    }
    let body = request.json();
    if body["FromEmailAddress"].as_str().is_none_or(|from| !from.contains('@')) {
        return bad("Missing required parameter: FromEmailAddress.");
    }
    let addresses = ["ToAddresses", "CcAddresses", "BccAddresses"]
        .iter()
        .filter_map(|field| body["Destination"][field].as_array())
        .map(Vec::len)
        .sum::<usize>();
    if addresses == 0 {
        return bad("Missing required parameter: Destination.");
    }
    if addresses > 50 {
        return Some(error(400, "MessageRejected", "Recipient count exceeds 50."));
    }
    let simple = &body["Content"]["Simple"];
    if !simple.is_object() {
        return bad("Missing required parameter: Content.");
    }
    let data = |part: &Value| part["Data"].is_string();
    if !data(&simple["Subject"]) || !(data(&simple["Body"]["Html"]) || data(&simple["Body"]["Text"])) {
        return bad("Simple content needs a Subject and a Body with Html or Text.");
    }
    None
}
