//! The push and chat providers of issue 22 end to end: an integration pointed at the provider's local
//! fake, a workflow step, Ada's destination, a trigger; the message is sent with the provider's id, and
//! a device the provider says is gone is removed from Ada's credentials.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{
    create_integration, create_workflow, details, events_of, job, messages_of, trigger_processed, wait_until_settled,
};
use crate::fakes::{appio, pusher_beams, pushpad, whatsapp_business, FakeProvider};
use crate::support::TestServer;

/// One provider's case: its integration's credentials (given the fake's base URL), Ada's device tokens
/// (none for a chat provider), the tokens expected to remain, and what its provider message id starts with.
struct Case {
    provider_id: &'static str,
    channel: &'static str,
    fake: FakeProvider,
    credentials: Value,
    tokens: Vec<String>,
    remaining: Vec<String>,
    id_prefix: &'static str,
}

async fn cases() -> Vec<Case> {
    let pushpad = pushpad::start().await;
    let beams = pusher_beams::start().await;
    let whatsapp = whatsapp_business::start().await;
    let (uid, gone) = (pushpad::uid(), pushpad::unsubscribed_uid());
    let users = vec![pusher_beams::user_id(), pusher_beams::user_id()];
    vec![
        Case {
            provider_id: "pushpad",
            channel: "push",
            credentials: json!({"apiKey": pushpad::AUTH_TOKEN, "applicationId": pushpad::PROJECT_ID,
                                "baseUrl": pushpad.base_url()}),
            fake: pushpad,
            tokens: vec![uid.clone(), gone],
            remaining: vec![uid],
            id_prefix: "197123",
        },
        Case {
            provider_id: "pusher-beams",
            channel: "push",
            credentials: json!({"instanceId": pusher_beams::INSTANCE_ID, "secretKey": pusher_beams::SECRET_KEY,
                                "baseUrl": beams.base_url()}),
            fake: beams,
            tokens: users.clone(),
            remaining: users,
            id_prefix: "pubid-",
        },
        Case {
            provider_id: "whatsapp-business",
            channel: "chat",
            credentials: json!({"apiToken": whatsapp_business::TOKEN,
                                "phoneNumberIdentification": whatsapp_business::PHONE_NUMBER_ID,
                                "baseUrl": whatsapp.base_url()}),
            fake: whatsapp,
            tokens: Vec::new(),
            remaining: Vec::new(),
            id_prefix: "wamid.",
        },
    ]
}

async fn device_tokens_of_ada(server: &TestServer, provider_id: &str) -> Value {
    let (status, subscriber) = server.get_json("/v2/subscribers/ada").await;
    assert_eq!(status, 200, "{subscriber}");
    let channels = subscriber["data"]["channels"].as_array().or_else(|| subscriber["channels"].as_array()).unwrap();
    let entry = channels.iter().find(|entry| entry["providerId"] == provider_id).expect("Ada's entry");
    entry["credentials"]["deviceTokens"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_provider_sends_through_the_engine_records_its_id_and_drops_a_gone_device() {
    for case in cases().await {
        let provider = case.provider_id;
        let server = TestServer::start().await;
        create_integration(
            &server,
            json!({"providerId": provider, "channel": case.channel, "identifier": provider, "active": true,
                   "credentials": case.credentials}),
        )
        .await;
        let step = json!({"name": "Step", "type": case.channel,
                          "controlValues": {"subject": "Order {{ payload.orderId }}", "body": "Shipped"}});
        create_workflow(&server, "notify", json!([step])).await;
        let ada = json!({"subscriberId": "ada", "phone": "+15550100"});
        let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &ada).await;
        assert_eq!(status, 201, "{body}");
        if case.channel == "push" {
            let update = json!({"providerId": provider, "credentials": {"deviceTokens": case.tokens}});
            let (status, body) = server.send_json(Method::PATCH, "/v1/subscribers/ada/credentials", &update).await;
            assert_eq!(status, 200, "{provider}: {body}");
        }

        let transaction_id =
            trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "A-1"}})).await;
        wait_until_settled(&server).await;

        let events = events_of(&server, &transaction_id).await;
        assert_eq!(case.fake.requests().len(), 1, "{provider}: one request for the message: {events:#?}");
        let messages = messages_of(&server, &transaction_id).await;
        assert_eq!(messages.len(), 1, "{provider}");
        assert_eq!(messages[0]["status"], "sent", "{provider}: {}", messages[0]);
        let step_job = job(&events_of(&server, &transaction_id).await[0], case.channel).clone();
        assert_eq!(step_job["status"], "completed", "{provider}: {step_job}");
        let details = details(&step_job);
        let marker = format!("(provider message id {}", case.id_prefix);
        assert!(details.iter().any(|detail| detail.contains(&marker)), "{provider}: {details:?}");
        if case.channel == "push" {
            assert_eq!(device_tokens_of_ada(&server, provider).await, json!(case.remaining), "{provider}");
        } else {
            assert_eq!(case.fake.requests()[0].json()["to"], "+15550100", "{provider}: to Ada's phone");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn appio_checks_each_citizens_profile_sends_records_its_id_and_drops_a_citizen_who_blocked_it() {
    let server = TestServer::start().await;
    let fake = appio::start().await;
    create_integration(
        &server,
        json!({"providerId": "appio", "channel": "push", "identifier": "io", "active": true,
               "credentials": {"apiKey": appio::API_KEY, "baseUrl": appio::base_url(&fake)}}),
    )
    .await;
    let body =
        "Your order {{ payload.orderId }} left our warehouse today and will reach you within three working days.";
    let step = json!({"name": "Step", "type": "push",
                      "controlValues": {"subject": "Order {{ payload.orderId }} shipped", "body": body}});
    create_workflow(&server, "notify", json!([step])).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    let tokens = json!([appio::FISCAL_CODE, appio::BLOCKED_FISCAL_CODE]);
    let update = json!({"providerId": "appio", "credentials": {"deviceTokens": tokens}});
    let (status, body) = server.send_json(Method::PATCH, "/v1/subscribers/ada/credentials", &update).await;
    assert_eq!(status, 200, "{body}");

    let transaction_id =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "A-1"}})).await;
    wait_until_settled(&server).await;

    let requests = fake.requests();
    let messages: Vec<_> = requests.iter().filter(|request| request.path == "/api/v1/messages").collect();
    assert_eq!(requests.len(), 3, "two profile checks, one message");
    assert_eq!(messages[0].json()["fiscal_code"], appio::FISCAL_CODE);
    assert_eq!(messages[0].json()["content"]["subject"], "Order A-1 shipped");
    let sent = messages_of(&server, &transaction_id).await;
    assert_eq!(sent[0]["status"], "sent", "{}", sent[0]);
    let step_job = job(&events_of(&server, &transaction_id).await[0], "push").clone();
    let marker = format!("(provider message id {}", appio::MESSAGE_ID);
    assert!(details(&step_job).iter().any(|detail| detail.contains(&marker)), "{step_job}");
    assert_eq!(device_tokens_of_ada(&server, "appio").await, json!([appio::FISCAL_CODE]));
}
