use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::rocket_chat::{self, rate_limited, MESSAGE_ID, PATH, PRIVATE_ROOM, ROOM, TOKEN, USER_ID};
use crate::fakes::{FakeAnswer, FakeProvider};

fn to_room(fake: &FakeProvider, room: &str) -> Delivery {
    let mut message =
        chat("rocket-chat", json!({"token": TOKEN, "user": USER_ID}), Some(&format!("{}/", fake.base_url())));
    message.to.chat_channel = Some(room.to_owned());
    message
}

#[tokio::test]
async fn a_message_goes_to_the_subscribers_room_and_its_id_is_recorded() {
    let fake = rocket_chat::start().await;
    let mut message = to_room(&fake, ROOM);
    message.overrides = json!({"chat": {"alias": "Orders"}, "rocket-chat": {"emoji": ":package:"}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", PATH));
    assert_eq!(request.header("x-auth-token"), Some(TOKEN));
    assert_eq!(request.header("x-user-id"), Some(USER_ID));
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"message": {"rid": ROOM, "msg": "Order A-1 shipped", "alias": "Orders", "emoji": ":package:"}})
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some(MESSAGE_ID));
}

#[tokio::test]
async fn a_room_that_is_gone_is_a_dead_destination_and_a_room_not_allowed_permanent() {
    let fake = rocket_chat::start().await;

    let gone = send(&to_room(&fake, "NoSuchRoom0000000")).await.unwrap_err();
    let not_allowed = send(&to_room(&fake, PRIVATE_ROOM)).await.unwrap_err();

    assert!(matches!(gone, ProviderError::DeadDestination { .. }), "{gone:?}");
    assert!(
        gone.to_string()
            .ends_with("HTTP 400 Bad Request from 127.0.0.1: error-invalid-room: Invalid room [error-invalid-room]"),
        "{gone}"
    );
    assert!(matches!(not_allowed, ProviderError::Permanent { .. }), "{not_allowed:?}");
}

#[tokio::test]
async fn a_wrong_token_misconfigures_the_integration_and_none_sends_nothing() {
    let fake = rocket_chat::start().await;
    let mut wrong = to_room(&fake, ROOM);
    wrong.credentials["token"] = json!("not-the-token");
    let mut without = to_room(&fake, ROOM);
    without.credentials = json!({"user": USER_ID});
    let mut no_room = to_room(&fake, ROOM);
    no_room.to.chat_channel = None;

    let refused = send(&wrong).await.unwrap_err();
    let missing = send(&without).await.unwrap_err();
    let roomless = send(&no_room).await.unwrap_err();

    assert!(matches!(refused, ProviderError::Misconfigured { .. }), "{refused:?}");
    assert!(refused.to_string().ends_with(": You must be logged in to do this."), "{refused}");
    assert!(matches!(missing, ProviderError::Misconfigured { .. }), "{missing:?}");
    assert!(matches!(roomless, ProviderError::Permanent { .. }), "{roomless:?}");
    assert_eq!(fake.requests().len(), 1, "only the wrong token reached the server");
}

#[tokio::test]
async fn rate_limits_wait_the_seconds_the_error_names_and_server_errors_are_transient() {
    let fake = rocket_chat::start().await;
    fake.then(rate_limited(12)).then(FakeAnswer::text(503, "Service Unavailable"));
    let message = to_room(&fake, ROOM);

    let limited = send(&message).await.unwrap_err();
    let unavailable = send(&message).await.unwrap_err();

    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(12)));
    assert!(unavailable.is_transient(), "{unavailable:?}");
}
