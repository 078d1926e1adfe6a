//! Amazon SES's delivery events, as SNS delivers them (see `sns` for how the post is verified). The
//! SNS message is the SES event as JSON: an event-publishing record (`eventType`) or an identity
//! notification (`notificationType`), matched by `mail.messageId`, the id `SendEmail` answered.
//!
//! Events: `Delivery`; `Bounce` (a failure whatever its `bounceType`: SES retries soft bounces itself
//! and reports a bounce only once it gives up; `DeliveryDelay` is its interim news), `Complaint`,
//! `Reject` (a failure: SES found a virus or a suppressed address and did not send), `Rendering
//! Failure`; `Send` and `DeliveryDelay` are pending; opens, clicks and subscriptions are ignored.

use serde_json::Value;

use super::signing::malformed;
use super::sns::SnsPost;
use super::{Outcome, StatusEvent};
use crate::error::AppResult;

const PROVIDER: &str = "ses";

/// The event a verified SNS post carries; none for a subscription confirmation.
pub(super) fn read(post: SnsPost) -> AppResult<Vec<StatusEvent>> {
    let SnsPost::Notification { message } = post else { return Ok(Vec::new()) };
    let event: Value = serde_json::from_str(&message)
        .map_err(|_| malformed(PROVIDER, "the SNS message is not an SES event (JSON)"))?;
    parse(&event).map(|event| event.into_iter().collect())
}

fn parse(event: &Value) -> AppResult<Option<StatusEvent>> {
    let kind = event["eventType"]
        .as_str()
        .or_else(|| event["notificationType"].as_str())
        .ok_or_else(|| malformed(PROVIDER, "no `eventType` or `notificationType`"))?;
    let (outcome, detail_key) = match kind {
        "Delivery" => (Outcome::Delivered, "delivery"),
        "Bounce" => (Outcome::Failed { error_id: "bounced" }, "bounce"),
        "Complaint" => (Outcome::Failed { error_id: "complained" }, "complaint"),
        "Reject" => (Outcome::Failed { error_id: "dropped" }, "reject"),
        "Rendering Failure" => (Outcome::Failed { error_id: "delivery_failed" }, "failure"),
        "Send" => (Outcome::Pending, "send"),
        "DeliveryDelay" => (Outcome::Pending, "deliveryDelay"),
        _ => return Ok(None),
    };
    let message_id = event["mail"]["messageId"]
        .as_str()
        .filter(|id| !id.is_empty())
        .ok_or_else(|| malformed(PROVIDER, "no `mail.messageId`"))?;
    let detail = &event[detail_key];
    let occurred_at = detail["timestamp"]
        .as_str()
        .or_else(|| event["mail"]["timestamp"].as_str())
        .and_then(|text| chrono::DateTime::parse_from_rfc3339(text).ok())
        .map(|at| at.to_utc());
    Ok(Some(StatusEvent {
        herald_message_id: None,
        provider_message_ids: vec![message_id.to_string()],
        outcome,
        event: match detail["bounceType"].as_str() {
            Some(bounce_type) => format!("{kind}/{bounce_type}"),
            None => kind.to_string(),
        },
        reason: reason(kind, detail),
        occurred_at,
        raw: event.to_string(),
    }))
}

/// What SES says went wrong, in its own words.
fn reason(kind: &str, detail: &Value) -> Option<String> {
    let text = |key: &str| detail[key].as_str().filter(|text| !text.is_empty());
    match kind {
        "Bounce" => {
            let diagnostic = detail["bouncedRecipients"]
                .as_array()
                .into_iter()
                .flatten()
                .find_map(|recipient| recipient["diagnosticCode"].as_str());
            let kind = [text("bounceType"), text("bounceSubType")].into_iter().flatten().collect::<Vec<_>>();
            let kind = format!("{} bounce", kind.join("/"));
            Some(match diagnostic {
                Some(diagnostic) => format!("{kind}: {diagnostic}"),
                None => kind,
            })
        }
        "Complaint" => Some(match text("complaintFeedbackType") {
            Some(feedback) => format!("The recipient complained ({feedback})"),
            None => "The recipient complained".to_owned(),
        }),
        "Reject" => text("reason").map(|reason| format!("SES rejected the message: {reason}")),
        "Rendering Failure" => text("errorMessage").map(str::to_owned),
        "DeliveryDelay" => text("delayType").map(|delay| format!("Delivery delayed ({delay})")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The shapes of AWS's "Examples of event data that Amazon SES publishes to Amazon SNS".
    #[test]
    fn ses_events_map_to_outcomes_with_ses_reasons() {
        let bounce = json!({"eventType": "Bounce",
            "bounce": {"bounceType": "Permanent", "bounceSubType": "General", "timestamp": "2017-08-05T00:41:02.669Z",
                       "bouncedRecipients": [{"emailAddress": "r@example.com", "action": "failed", "status": "5.1.1",
                                              "diagnosticCode": "smtp; 550 5.1.1 user unknown"}]},
            "mail": {"timestamp": "2017-08-05T00:40:02.012Z", "messageId": "EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000"}});
        let event = parse(&bounce).unwrap().unwrap();
        assert_eq!(event.outcome, Outcome::Failed { error_id: "bounced" });
        assert_eq!(event.event, "Bounce/Permanent");
        assert_eq!(event.reason.as_deref(), Some("Permanent/General bounce: smtp; 550 5.1.1 user unknown"));
        assert_eq!(event.provider_message_ids, ["EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000"]);
        assert_eq!(event.occurred_at.unwrap().to_rfc3339(), "2017-08-05T00:41:02.669+00:00");

        let delivery = json!({"notificationType": "Delivery", "mail": {"messageId": "m1"},
                              "delivery": {"timestamp": "2016-01-27T14:59:38.237Z", "recipients": ["r@example.com"]}});
        assert_eq!(parse(&delivery).unwrap().unwrap().outcome, Outcome::Delivered);
        let complaint = json!({"eventType": "Complaint", "mail": {"messageId": "m1"},
                               "complaint": {"complaintFeedbackType": "abuse"}});
        let complaint = parse(&complaint).unwrap().unwrap();
        assert_eq!(complaint.outcome, Outcome::Failed { error_id: "complained" });
        assert_eq!(complaint.reason.as_deref(), Some("The recipient complained (abuse)"));
        let delay = json!({"eventType": "DeliveryDelay", "mail": {"messageId": "m1"},
                           "deliveryDelay": {"delayType": "MailboxFull"}});
        assert_eq!(parse(&delay).unwrap().unwrap().outcome, Outcome::Pending);
        assert_eq!(parse(&json!({"eventType": "Open", "mail": {"messageId": "m1"}})).unwrap(), None);
        assert!(parse(&json!({"eventType": "Delivery", "mail": {}})).is_err(), "no message id");
    }
}
