//! The subscriber's preferences through the inbox: the same preferences the server API keeps.

use reqwest::Method;
use serde_json::json;

use super::Inbox;

#[tokio::test(flavor = "multi_thread")]
async fn preferences_written_through_the_inbox_are_the_server_apis_and_the_other_way_round() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let identifier = inbox.flow["workflowId"].as_str().unwrap().to_string();
    let server_path = "/v2/subscribers/ada/preferences";

    let (status, body) = inbox.call(&token, Method::GET, "/v1/inbox/preferences", None).await;
    assert_eq!(status, 200, "{body}");
    let global = &body["data"][0];
    assert_eq!((&global["level"], &global["enabled"]), (&json!("global"), &json!(true)));
    assert_eq!(global["channels"], json!({"email": true, "sms": true, "in_app": true, "chat": true, "push": true}));
    let template = &body["data"][1];
    assert_eq!((&template["level"], &template["channels"]), (&json!("template"), &json!({"in_app": true})));
    assert_eq!(
        template["workflow"],
        json!({"id": inbox.flow["_id"], "identifier": identifier, "name": "Order shipped", "critical": false, "tags": ["orders"]})
    );

    // Inbox → server API.
    let (status, body) =
        inbox.call(&token, Method::PATCH, "/v1/inbox/preferences", Some(&json!({"email": false}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((&body["data"]["level"], &body["data"]["channels"]["email"]), (&json!("global"), &json!(false)));
    let (_, server) = inbox.env.get(&inbox.server, server_path).await;
    assert_eq!(
        (&server["global"]["channels"]["email"], &server["global"]["channels"]["sms"]),
        (&json!(false), &json!(true))
    );

    // Server API → inbox.
    let update = json!({"workflowId": identifier, "channels": {"in_app": false}});
    let (status, _) = inbox.env.send(&inbox.server, Method::PATCH, server_path, Some(&update)).await;
    assert_eq!(status, 200);
    let (_, body) = inbox.call(&token, Method::GET, "/v1/inbox/preferences", None).await;
    assert_eq!(body["data"][1]["channels"], json!({"in_app": false}));

    // Per workflow through the inbox, named by its identifier.
    let path = format!("/v1/inbox/preferences/{identifier}");
    let (status, body) = inbox.call(&token, Method::PATCH, &path, Some(&json!({"in_app": true}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((&body["data"]["level"], &body["data"]["channels"]), (&json!("template"), &json!({"in_app": true})));
    assert_eq!(body["data"]["workflow"]["identifier"], json!(identifier));
    let (_, server) = inbox.env.get(&inbox.server, server_path).await;
    assert_eq!(server["workflows"][0]["channels"], json!({"in_app": true}));
    assert_eq!(server["workflows"][0]["overrides"][0]["source"], "subscriber");

    // Another subscriber's preferences are untouched.
    let (_, body) = inbox.call(&inbox.token("bob").await, Method::GET, "/v1/inbox/preferences", None).await;
    assert_eq!(body["data"][0]["channels"]["email"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_workflow_or_a_malformed_flag_is_refused_and_changes_nothing() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let (status, body) = inbox
        .call(&token, Method::PATCH, "/v1/inbox/preferences/no-such-workflow", Some(&json!({"email": false})))
        .await;
    assert_eq!((status, body["statusCode"].as_i64()), (404, Some(404)), "{body}");
    let (status, body) =
        inbox.call(&token, Method::PATCH, "/v1/inbox/preferences", Some(&json!({"email": "off"}))).await;
    assert_eq!(status, 400, "{body}");
    let (_, body) = inbox.call(&token, Method::GET, "/v1/inbox/preferences", None).await;
    assert_eq!(body["data"][0]["channels"]["email"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_lists_and_updates_the_same_preferences() {
    use herald::proto::herald::v1 as pb;

    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let mut client = pb::inbox_service_client::InboxServiceClient::new(inbox.server.grpc_channel().await);
    fn authorized<T>(token: &str, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        request
    }
    let update = pb::UpdateInboxPreferenceRequest { sms: Some(false), ..Default::default() };
    let updated = client.update_inbox_preference(authorized(&token, update)).await.unwrap().into_inner().data.unwrap();
    assert_eq!((updated.level.as_str(), updated.channels.unwrap().sms), ("global", Some(false)));
    let listed = client
        .list_inbox_preferences(authorized(&token, pb::ListInboxPreferencesRequest {}))
        .await
        .unwrap()
        .into_inner()
        .data;
    assert_eq!(listed.iter().map(|preference| preference.level.as_str()).collect::<Vec<_>>(), ["global", "template"]);
    assert_eq!(listed[0].channels.unwrap().sms, Some(false));
    let (_, server) = inbox.env.get(&inbox.server, "/v2/subscribers/ada/preferences").await;
    assert_eq!(server["global"]["channels"]["sms"], false);
}
