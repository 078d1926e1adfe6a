//! Integrations (provider connections) over REST and gRPC.

use herald::proto::herald::v1 as pb;
use pb::integrations_service_client::IntegrationsServiceClient;
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{http_client, read_json, TestServer};

/// Keys of every integration; `configurations` only in the active listing, `deletedAt`/`deletedBy` once deleted.
const INTEGRATION_KEYS: [&str; 12] = [
    "_id",
    "_environmentId",
    "_organizationId",
    "name",
    "identifier",
    "providerId",
    "channel",
    "credentials",
    "active",
    "deleted",
    "primary",
    "conditions",
];

/// Asserts every key of an integration is present with its type, and no other key.
fn assert_integration_shape(body: &Value, with_configurations: bool) {
    let object = body.as_object().unwrap_or_else(|| panic!("an object: {body}"));
    let mut expected = INTEGRATION_KEYS.to_vec();
    if with_configurations {
        expected.push("configurations");
    }
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    expected.sort_unstable();
    assert_eq!(keys, expected, "{body}");
    for key in ["_id", "_environmentId", "_organizationId", "name", "identifier", "providerId", "channel"] {
        assert!(body[key].as_str().is_some_and(|text| !text.is_empty()), "{key}: {body}");
    }
    for key in ["active", "deleted", "primary"] {
        assert!(body[key].is_boolean(), "{key}: {body}");
    }
    assert!(body["credentials"].is_object(), "{body}");
    assert!(body["conditions"].is_array(), "{body}");
    if with_configurations {
        let configurations = &body["configurations"];
        assert!(configurations["inboundWebhookEnabled"].is_boolean(), "{body}");
        let key = configurations["inboundWebhookSigningKey"].as_str().expect("signing key");
        assert_eq!(key.len(), 64, "{body}");
    }
}

async fn create(server: &TestServer, body: Value) -> Value {
    let (status, created) = server.send_json(Method::POST, "/v1/integrations", &body).await;
    assert_eq!(status, 201, "{created}");
    created
}

async fn create_email(server: &TestServer, name: &str) -> Value {
    create(server, json!({"providerId": "sendgrid", "channel": "email", "name": name, "active": true})).await
}

async fn set_primary(server: &TestServer, id: &str) -> (u16, Value) {
    let path = format!("/v1/integrations/{id}/set-primary");
    read_json(server.request(Method::POST, &path).send().await.unwrap()).await
}

async fn send_as(server: &TestServer, key: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = http_client().request(method, server.url(path)).header("authorization", format!("ApiKey {key}"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    read_json(request.send().await.unwrap()).await
}

fn ids(list: &Value) -> Vec<&str> {
    list.as_array().expect("an array").iter().map(|item| item["_id"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn create_returns_the_integration_with_its_credentials_as_given() {
    let server = TestServer::start().await;
    let conditions = json!([{
        "isNegated": false, "type": "TEXT", "value": "AND",
        "children": [{"field": "plan", "value": "pro", "operator": "EQUAL", "on": "payload"}]
    }]);
    let body = create(
        &server,
        json!({
            "providerId": "sendgrid", "channel": "email", "name": "Main Sendgrid",
            "credentials": {"apiKey": "SG.secret", "from": "hi@acme.io", "senderName": "Acme", "secure": true},
            "active": true, "conditions": conditions
        }),
    )
    .await;
    assert_integration_shape(&body, false);
    assert_eq!(body["_environmentId"], server.environment_id.to_string());
    assert_eq!(body["_organizationId"], server.organization_id.to_string());
    assert_eq!(body["name"], "Main Sendgrid");
    assert_eq!(body["identifier"], "main-sendgrid");
    assert_eq!(body["providerId"], "sendgrid");
    assert_eq!(body["channel"], "email");
    assert_eq!(
        body["credentials"],
        json!({"apiKey": "SG.secret", "from": "hi@acme.io", "senderName": "Acme", "secure": true})
    );
    assert_eq!(body["active"], true);
    assert_eq!(body["deleted"], false);
    assert_eq!(body["primary"], false);
    assert_eq!(body["conditions"], conditions);

    let (status, fetched) = server.get_json(&format!("/v1/integrations/{}", body["_id"].as_str().unwrap())).await;
    assert_eq!(status, 200);
    assert_eq!(fetched, body);
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_are_encrypted_at_rest() {
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;
    use herald::db::schema::integrations;

    let server = TestServer::start().await;
    create(&server, json!({"providerId": "twilio", "channel": "sms", "credentials": {"apiKey": "plain-secret-42"}}))
        .await;
    let mut conn = server.pool.get().await.unwrap();
    let stored: Vec<u8> =
        integrations::table.select(integrations::credentials_encrypted).first(&mut conn).await.unwrap();
    assert!(!stored.windows(b"plain-secret-42".len()).any(|window| window == b"plain-secret-42"));
    assert!(stored.len() > 24 + b"plain-secret-42".len(), "nonce, ciphertext and tag");
}

#[tokio::test(flavor = "multi_thread")]
async fn identifiers_are_generated_unique_and_defaults_apply() {
    let server = TestServer::start().await;
    let first = create(&server, json!({"providerId": "twilio", "channel": "sms"})).await;
    assert_eq!(first["name"], "twilio");
    assert_eq!(first["identifier"], "twilio");
    assert_eq!(first["active"], false);
    assert_eq!(first["credentials"], json!({}));
    assert_eq!(first["conditions"], json!([]));
    let second = create(&server, json!({"providerId": "twilio", "channel": "sms"})).await;
    let identifier = second["identifier"].as_str().unwrap();
    assert!(identifier.starts_with("twilio-") && identifier.len() == "twilio-".len() + 6, "{identifier}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_explicit_duplicate_identifier_is_a_409() {
    let server = TestServer::start().await;
    create(&server, json!({"providerId": "slack", "channel": "chat", "identifier": "team-chat"})).await;
    let (status, body) = server
        .send_json(
            Method::POST,
            "/v1/integrations",
            &json!({"providerId": "discord", "channel": "chat", "identifier": "team-chat"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "Conflict");
    assert!(body["message"].as_str().unwrap().contains("team-chat"), "{body}");

    let other = create(&server, json!({"providerId": "discord", "channel": "chat"})).await;
    let path = format!("/v1/integrations/{}", other["_id"].as_str().unwrap());
    let (status, body) = server.send_json(Method::PUT, &path, &json!({"identifier": "team-chat"})).await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_of_another_channel_is_a_422_naming_every_bad_field() {
    let server = TestServer::start().await;
    let (status, body) = server
        .send_json(Method::POST, "/v1/integrations", &json!({"providerId": "sendgrid", "channel": "sms", "name": " "}))
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"]["providerId"]["value"], "sendgrid");
    assert!(body["errors"]["providerId"]["messages"][0].as_str().unwrap().contains("sms"), "{body}");
    assert_eq!(body["errors"]["name"]["value"], " ");

    let (status, body) = server.send_json(Method::POST, "/v1/integrations", &json!({"providerId": "svc"})).await;
    assert_eq!(status, 422, "{body}");
    assert!(body["errors"]["channel"].is_object(), "{body}");

    let (status, body) = server
        .send_json(
            Method::POST,
            "/v1/integrations",
            &json!({"providerId": "svc", "channel": "in_app", "conditions": [{}]}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(body["errors"]["conditions[0].type"].is_object(), "{body}");

    let (status, _) = server.get_json("/v1/integrations").await;
    assert_eq!(status, 200);
    assert_eq!(server.get_json("/v1/integrations").await.1, json!([]), "nothing was stored");
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_ids_are_404_naming_the_id() {
    let server = TestServer::start().await;
    for id in ["0195a1b2-0000-7000-8000-000000000000", "not-an-id"] {
        let path = format!("/v1/integrations/{id}");
        let (status, body) = server.get_json(&path).await;
        assert_eq!(status, 404, "{body}");
        assert!(body["message"].as_str().unwrap().contains(id), "{body}");
        assert_eq!(server.send_json(Method::PUT, &path, &json!({"name": "x"})).await.0, 404);
        assert_eq!(server.request(Method::DELETE, &path).send().await.unwrap().status(), 404);
        assert_eq!(set_primary(&server, id).await.0, 404);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn update_writes_only_the_fields_sent() {
    let server = TestServer::start().await;
    let created = create(
        &server,
        json!({"providerId": "mailgun", "channel": "email", "name": "Mailgun", "credentials": {"apiKey": "k1", "domain": "mg.acme.io"},
               "conditions": [{"isNegated": true, "type": "BOOLEAN", "value": "OR", "children": []}]}),
    )
    .await;
    let path = format!("/v1/integrations/{}", created["_id"].as_str().unwrap());

    let (status, body) = server.send_json(Method::PUT, &path, &json!({"name": "Mailgun EU", "active": true})).await;
    assert_eq!(status, 200, "{body}");
    assert_integration_shape(&body, false);
    assert_eq!(body["name"], "Mailgun EU");
    assert_eq!(body["active"], true);
    assert_eq!(body["identifier"], "mailgun");
    assert_eq!(body["credentials"], created["credentials"]);
    assert_eq!(body["conditions"], created["conditions"]);

    let (status, body) =
        server.send_json(Method::PUT, &path, &json!({"credentials": {"apiKey": "k2"}, "conditions": []})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["credentials"], json!({"apiKey": "k2"}), "credentials are replaced whole");
    assert_eq!(body["conditions"], json!([]));
    assert_eq!(body["name"], "Mailgun EU");
    assert_eq!(server.get_json(&path).await.1, body);
}

#[tokio::test(flavor = "multi_thread")]
async fn set_primary_activates_and_demotes_the_previous_primary() {
    let server = TestServer::start().await;
    let first = create(&server, json!({"providerId": "sendgrid", "channel": "email", "active": false})).await;
    let second = create_email(&server, "Second").await;
    let first_id = first["_id"].as_str().unwrap();
    let second_id = second["_id"].as_str().unwrap();

    // No body and no content type, as clients send it.
    let (status, body) = set_primary(&server, first_id).await;
    assert_eq!(status, 200, "{body}");
    assert_integration_shape(&body, false);
    assert_eq!(body["primary"], true);
    assert_eq!(body["active"], true, "set-primary activates");

    let (status, again) = set_primary(&server, first_id).await;
    assert_eq!(status, 200);
    assert_eq!(again, body, "already primary: unchanged");

    let (status, body) = set_primary(&server, second_id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["primary"], true);
    let (_, first_now) = server.get_json(&format!("/v1/integrations/{first_id}")).await;
    assert_eq!(first_now["primary"], false);
    assert_eq!(first_now["active"], true, "the previous primary stays active");
}

#[tokio::test(flavor = "multi_thread")]
async fn set_primary_on_chat_push_or_in_app_is_a_400() {
    let server = TestServer::start().await;
    for (provider, channel) in [("slack", "chat"), ("fcm", "push"), ("svc", "in_app")] {
        let created = create(&server, json!({"providerId": provider, "channel": channel, "active": true})).await;
        let (status, body) = set_primary(&server, created["_id"].as_str().unwrap()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["error"], "Bad Request");
        assert!(body["message"].as_str().unwrap().contains(channel), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_set_primary_calls_leave_exactly_one_primary() {
    let server = TestServer::start().await;
    let mut ids = Vec::new();
    for index in 0..10 {
        ids.push(create_email(&server, &format!("Email {index}")).await["_id"].as_str().unwrap().to_string());
    }
    let calls = ids.iter().map(|id| set_primary(&server, id));
    let answers = futures_util::future::join_all(calls).await;
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        assert_eq!(body["primary"], true);
    }
    let (_, listed) = server.get_json("/v1/integrations").await;
    let primaries: Vec<&Value> = listed.as_array().unwrap().iter().filter(|item| item["primary"] == true).collect();
    assert_eq!(primaries.len(), 1, "{listed}");
}

/// The reported deadlock: 30 calls at once over three integrations of one channel answered 500 for 7
/// to 17 of them.
#[tokio::test(flavor = "multi_thread")]
async fn thirty_concurrent_set_primary_calls_over_three_integrations_all_answer_200() {
    let server = TestServer::start().await;
    let mut ids = Vec::new();
    for index in 0..3 {
        ids.push(create_email(&server, &format!("Email {index}")).await["_id"].as_str().unwrap().to_string());
    }
    for _round in 0..3 {
        let calls = ids.iter().cycle().take(30).map(|id| set_primary(&server, id));
        let answers = futures_util::future::join_all(calls).await;
        let failures: Vec<_> = answers.iter().filter(|(status, _)| *status != 200).collect();
        assert!(failures.is_empty(), "{failures:?}");
        let (_, listed) = server.get_json("/v1/integrations").await;
        let primaries = listed.as_array().unwrap().iter().filter(|item| item["primary"] == true).count();
        assert_eq!(primaries, 1, "{listed}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn delete_is_soft_and_returns_the_remaining_integrations() {
    let server = TestServer::start().await;
    let first = create_email(&server, "First").await;
    let second = create(&server, json!({"providerId": "twilio", "channel": "sms", "active": true})).await;
    let third = create(&server, json!({"providerId": "slack", "channel": "chat", "active": true})).await;
    let first_id = first["_id"].as_str().unwrap();
    set_primary(&server, first_id).await;

    let path = format!("/v1/integrations/{first_id}");
    let response = server.request(Method::DELETE, &path).send().await.unwrap();
    let (status, remaining) = read_json(response).await;
    assert_eq!(status, 200, "{remaining}");
    assert_eq!(ids(&remaining), [second["_id"].as_str().unwrap(), third["_id"].as_str().unwrap()]);
    for item in remaining.as_array().unwrap() {
        assert_integration_shape(item, false);
    }

    assert_eq!(server.get_json(&path).await.0, 404);
    assert_eq!(server.request(Method::DELETE, &path).send().await.unwrap().status(), 404);
    let (_, active) = server.get_json("/v1/integrations/active").await;
    assert!(!ids(&active).contains(&first_id), "{active}");
    assert_eq!(ids(&active).len(), 2);

    // The identifier is free again, and the channel has no primary left to demote.
    let again = create(&server, json!({"providerId": "sendgrid", "channel": "email", "identifier": "first"})).await;
    assert_eq!(set_primary(&server, again["_id"].as_str().unwrap()).await.0, 200);

    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;
    use herald::db::schema::integrations;
    let mut conn = server.pool.get().await.unwrap();
    let (deleted, deleted_by, primary): (bool, Option<String>, bool) = integrations::table
        .find(uuid::Uuid::parse_str(first_id).unwrap())
        .select((integrations::deleted, integrations::deleted_by, integrations::is_primary))
        .first(&mut conn)
        .await
        .unwrap();
    assert!(deleted && !primary);
    assert_eq!(deleted_by, Some(server.environment_id.to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_active_listing_spans_the_organization_everything_else_the_environment() {
    let server = TestServer::start().await;
    let (_, other_key) = server.other_environment("production").await;
    let mine = create_email(&server, "Mine").await;
    create(&server, json!({"providerId": "twilio", "channel": "sms", "active": false})).await;
    let (status, theirs) = send_as(
        &server,
        &other_key,
        Method::POST,
        "/v1/integrations",
        Some(json!({"providerId": "fcm", "channel": "push", "active": true, "credentials": {"serviceAccount": "{}"}})),
    )
    .await;
    assert_eq!(status, 201, "{theirs}");
    let theirs_id = theirs["_id"].as_str().unwrap();

    let (status, active) = server.get_json("/v1/integrations/active").await;
    assert_eq!(status, 200);
    assert_eq!(ids(&active), [mine["_id"].as_str().unwrap(), theirs_id]);
    for item in active.as_array().unwrap() {
        assert_integration_shape(item, true);
        assert_eq!(item["configurations"]["inboundWebhookEnabled"], false);
    }
    assert_eq!(active[1]["credentials"], json!({"serviceAccount": "{}"}));

    let (_, listed) = server.get_json("/v1/integrations").await;
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert!(!ids(&listed).contains(&theirs_id));
    let path = format!("/v1/integrations/{theirs_id}");
    assert_eq!(server.get_json(&path).await.0, 404);
    assert_eq!(server.send_json(Method::PUT, &path, &json!({"name": "mine now"})).await.0, 404);
    assert_eq!(set_primary(&server, theirs_id).await.0, 404);
    assert_eq!(server.request(Method::DELETE, &path).send().await.unwrap().status(), 404);
    let (status, theirs_again) = send_as(&server, &other_key, Method::GET, &path, None).await;
    assert_eq!((status, theirs_again["name"].clone()), (200, json!("fcm")));
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_creates_and_lists_integrations_like_rest() {
    let server = TestServer::start().await;
    let mut client = IntegrationsServiceClient::new(server.grpc_channel().await);
    let created = client
        .create_integration(server.grpc_request(pb::CreateIntegrationRequest {
            provider_id: "twilio".into(),
            channel: pb::channel_type_enum::ChannelType::Sms as i32,
            name: Some("Twilio".into()),
            active: Some(true),
            credentials: Some(pb::IntegrationCredentials { account_sid: Some("AC1".into()), ..Default::default() }),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner()
        .integration
        .unwrap();
    assert_eq!(created.identifier, "twilio");
    assert_eq!(created.credentials.as_ref().unwrap().account_sid.as_deref(), Some("AC1"));

    let primary = client
        .set_integration_as_primary(
            server.grpc_request(pb::SetIntegrationAsPrimaryRequest { integration_id: created.id.clone() }),
        )
        .await
        .unwrap()
        .into_inner()
        .integration
        .unwrap();
    assert!(primary.primary);

    let listed = client
        .list_integrations(server.grpc_request(pb::ListIntegrationsRequest {}))
        .await
        .unwrap()
        .into_inner()
        .integrations;
    let (_, rest) = server.get_json("/v1/integrations").await;
    assert_eq!(serde_json::to_value(&listed).unwrap(), rest);

    let remaining = client
        .delete_integration(server.grpc_request(pb::DeleteIntegrationRequest { integration_id: created.id }))
        .await
        .unwrap()
        .into_inner()
        .integrations;
    assert!(remaining.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_reports_wrong_providers_unknown_ids_and_chat_primaries_with_their_codes() {
    let server = TestServer::start().await;
    let mut client = IntegrationsServiceClient::new(server.grpc_channel().await);
    let status = client
        .create_integration(server.grpc_request(pb::CreateIntegrationRequest {
            provider_id: "twilio".into(),
            channel: pb::channel_type_enum::ChannelType::Email as i32,
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().contains("providerId"), "{status:?}");

    let status = client
        .get_integration(server.grpc_request(pb::GetIntegrationRequest { integration_id: "missing".into() }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);

    let chat = create(&server, json!({"providerId": "msteams", "channel": "chat"})).await;
    let status =
        client
            .set_integration_as_primary(server.grpc_request(pb::SetIntegrationAsPrimaryRequest {
                integration_id: chat["_id"].as_str().unwrap().into(),
            }))
            .await
            .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);

    let status =
        client.list_active_integrations(tonic::Request::new(pb::ListActiveIntegrationsRequest {})).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
}
