use std::time::Duration;

use herald::providers::{Delivery, DeviceAnswer, ProviderError};
use serde_json::json;

use super::{push, send};
use crate::fakes::expo::{errors, Expo, ACCESS_TOKEN};
use crate::fakes::FakeAnswer;

const A: &str = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]";
const B: &str = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]";
const C: &str = "ExpoPushToken[cccccccccccccccccccccc]";

async fn send_each(delivery: &Delivery) -> Vec<DeviceAnswer> {
    crate::support::local_providers().get("expo").expect("the expo adapter").send_each(delivery).await
}

fn errors_of(answers: &[DeviceAnswer]) -> Vec<ProviderError> {
    answers.iter().map(|answer| answer.answer.clone().expect_err("an error")).collect()
}

#[tokio::test]
async fn every_token_of_a_message_goes_in_one_request_with_a_ticket_each() {
    let fake = Expo::start().await;
    let mut delivery = push("expo", fake.credentials(), &[A, B, C]);
    delivery.overrides = json!({"push": {"sound": "default", "android": {"priority": "high"}},
                                "expo": {"badge": 2, "channelId": "orders", "data": {"screen": "order"}}});

    let answers = send_each(&delivery).await;

    let request = fake.api.only_request();
    assert_eq!(request.header("authorization"), Some(format!("Bearer {ACCESS_TOKEN}").as_str()));
    assert!(request.content_type_is("application/json"));
    let message = |to: &str| {
        json!({"to": to, "title": "Order A-1 shipped", "body": "Your order is on its way",
               "data": {"orderId": "A-1", "screen": "order"}, "sound": "default", "badge": 2, "channelId": "orders"})
    };
    assert_eq!(request.json(), json!([message(A), message(B), message(C)]));
    assert_eq!(answers.iter().map(|answer| answer.token.as_str()).collect::<Vec<_>>(), [A, B, C]);
    for answer in &answers {
        let accepted = answer.answer.as_ref().expect("accepted");
        let id = accepted.provider_message_id.as_deref().expect("the ticket id");
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
        assert_eq!(accepted.raw.as_deref(), Some(json!({"status": "ok", "id": id}).to_string().as_str()));
    }
}

#[tokio::test]
async fn a_dead_token_among_three_is_answered_as_such_and_the_others_are_accepted() {
    let fake = Expo::start().await;
    fake.unregister(B);

    let answers = send_each(&push("expo", fake.credentials(), &[A, B, C])).await;

    assert!(answers[0].answer.is_ok() && answers[2].answer.is_ok(), "{answers:#?}");
    let dead = answers[1].answer.clone().unwrap_err();
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    assert_eq!(
        dead.to_string(),
        format!("expo: DeviceNotRegistered: \"{B}\" is not a registered push notification recipient")
    );
    assert!(dead.raw().unwrap().contains("\"expoPushToken\""), "the ticket is the raw answer");
    assert_eq!(fake.api.requests().len(), 1);
}

#[tokio::test]
async fn ticket_errors_sort_by_their_code_and_a_malformed_token_is_dead() {
    let fake = Expo::start().await;
    fake.ticket_error(A, "MessageRateExceeded", "Too many messages to this device");
    fake.ticket_error(B, "InvalidCredentials", "Could not find APNs credentials for com.acme.app");
    fake.ticket_error(C, "MessageTooBig", "Message is too big");

    let answers = send_each(&push("expo", fake.credentials(), &[A, B, C, "fcm:not-expo"])).await;

    let errors = errors_of(&answers);
    assert!(errors[0].is_transient(), "{:?}", errors[0]);
    assert!(matches!(errors[1], ProviderError::Misconfigured { .. }), "{:?}", errors[1]);
    assert!(matches!(errors[2], ProviderError::Permanent { .. }), "{:?}", errors[2]);
    assert!(matches!(errors[3], ProviderError::DeadDestination { .. }), "{:?}", errors[3]);
    assert_eq!(errors[2].to_string(), "expo: MessageTooBig: Message is too big");
}

#[tokio::test]
async fn more_than_a_hundred_tokens_go_in_chunks_of_a_hundred() {
    let fake = Expo::start().await;
    let tokens: Vec<String> = (0..250).map(|i| format!("ExponentPushToken[device{i:04}]")).collect();
    let delivery = push("expo", fake.credentials(), &tokens.iter().map(String::as_str).collect::<Vec<_>>());

    let answers = send_each(&delivery).await;

    assert_eq!(answers.len(), 250);
    assert!(answers.iter().zip(&tokens).all(|(answer, token)| &answer.token == token && answer.answer.is_ok()));
    let mut sizes: Vec<usize> =
        fake.api.requests().iter().map(|request| request.json().as_array().unwrap().len()).collect();
    sizes.sort();
    assert_eq!(sizes, [50, 100, 100]);
}

#[tokio::test]
async fn request_level_errors_are_every_tokens() {
    let fake = Expo::start().await;
    type Sort = fn(&ProviderError) -> bool;
    let cases: [(FakeAnswer, Sort, &str); 3] = [
        (
            errors(429, "RATE_LIMIT_EXCEEDED", "Too many requests").with_header("retry-after", "12"),
            ProviderError::is_transient,
            "expo: HTTP 429 Too Many Requests from 127.0.0.1: RATE_LIMIT_EXCEEDED: Too many requests",
        ),
        (
            errors(503, "SERVICE_UNAVAILABLE", "Try again"),
            ProviderError::is_transient,
            "expo: HTTP 503 Service Unavailable from 127.0.0.1: SERVICE_UNAVAILABLE: Try again",
        ),
        (
            errors(
                400,
                "PUSH_TOO_MANY_EXPERIENCE_IDS",
                "All push notification messages in the same request must be for the same project",
            ),
            |err| matches!(err, ProviderError::Permanent { .. }),
            "expo: HTTP 400 Bad Request from 127.0.0.1: PUSH_TOO_MANY_EXPERIENCE_IDS: All push",
        ),
    ];
    for (answer, sort, text) in cases {
        fake.api.then(answer);

        let errors = errors_of(&send_each(&push("expo", fake.credentials(), &[A, B])).await);

        assert_eq!(errors.len(), 2);
        for err in &errors {
            assert!(sort(err), "{err:?}");
            assert!(err.to_string().starts_with(text), "{err}");
        }
    }
    fake.api.then(errors(429, "RATE_LIMIT_EXCEEDED", "Too many requests").with_header("retry-after", "12"));
    let err = send(&push("expo", fake.credentials(), &[A])).await.unwrap_err();
    assert_eq!(err.retry_after(), Some(Duration::from_secs(12)));
}

#[tokio::test]
async fn a_wrong_access_token_misconfigures_and_none_is_sent_without_one() {
    let fake = Expo::start().await;
    let mut wrong = fake.credentials();
    wrong["apiKey"] = json!("expo-wrong");

    let err = send(&push("expo", wrong, &[A])).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(err.to_string().ends_with("invalid_token: The bearer token is invalid"), "{err}");
    assert!(!err.to_string().contains("expo-wrong"));

    let accepted = send(&push("expo", json!({"baseUrl": fake.api.base_url()}), &[A])).await.expect("accepted");
    assert!(accepted.provider_message_id.is_some());
    assert_eq!(fake.api.requests()[1].header("authorization"), None);
}
