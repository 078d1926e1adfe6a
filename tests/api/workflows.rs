//! Workflows (v2) over REST and gRPC.

use herald::proto::herald::v1 as pb;
use pb::workflows_service_client::WorkflowsServiceClient;
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{http_client, read_json, TestServer};

const WORKFLOW_KEYS: [&str; 20] = [
    "name",
    "description",
    "tags",
    "active",
    "validatePayload",
    "payloadSchema",
    "isTranslationEnabled",
    "_id",
    "workflowId",
    "slug",
    "updatedAt",
    "createdAt",
    "lastPublishedAt",
    "steps",
    "origin",
    "preferences",
    "status",
    "issues",
    "payloadExample",
    "severity",
];

const STEP_KEYS: [&str; 13] = [
    "controls",
    "controlValues",
    "variables",
    "stepId",
    "_id",
    "name",
    "slug",
    "type",
    "origin",
    "workflowId",
    "workflowDatabaseId",
    "filters",
    "shouldStopOnFail",
];

fn assert_timestamp(value: &Value) {
    let text = value.as_str().unwrap_or_else(|| panic!("timestamp: {value}"));
    assert!(text.ends_with('Z') && text.len() == 24 && chrono::DateTime::parse_from_rfc3339(text).is_ok(), "{text}");
}

fn sorted_keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> =
        value.as_object().unwrap_or_else(|| panic!("object: {value}")).keys().cloned().collect();
    keys.sort();
    keys
}

/// Every key of a v2 workflow with its type; `optional` names keys that may be absent.
fn assert_workflow_shape(body: &Value, with_schema: bool) {
    let mut expected: Vec<String> = WORKFLOW_KEYS.iter().map(|key| key.to_string()).collect();
    if !with_schema {
        expected.retain(|key| key != "payloadSchema" && key != "payloadExample");
    }
    if body.get("description").is_none() {
        expected.retain(|key| key != "description");
    }
    if body.get("lastTriggeredAt").is_some() {
        expected.push("lastTriggeredAt".into());
    }
    expected.sort();
    assert_eq!(sorted_keys(body), expected, "{body}");
    for key in ["name", "_id", "workflowId", "slug", "origin"] {
        assert!(body[key].as_str().is_some_and(|text| !text.is_empty()), "{key}: {body}");
    }
    for key in ["createdAt", "updatedAt", "lastPublishedAt"] {
        assert_timestamp(&body[key]);
    }
    for key in ["active", "validatePayload", "isTranslationEnabled"] {
        assert!(body[key].is_boolean(), "{key}: {body}");
    }
    assert!(body["tags"].is_array() && body["issues"].is_object() && body["preferences"]["default"].is_object());
    assert!(["ACTIVE", "INACTIVE", "ERROR"].contains(&body["status"].as_str().unwrap()), "{body}");
    assert!(["high", "medium", "low", "none"].contains(&body["severity"].as_str().unwrap()), "{body}");
    assert_eq!(body["slug"], format!("{}_wf_{}", body["workflowId"].as_str().unwrap(), body["_id"].as_str().unwrap()));
    for step in body["steps"].as_array().unwrap() {
        let mut expected: Vec<String> = STEP_KEYS.iter().map(|key| key.to_string()).collect();
        if step.get("issues").is_some() {
            expected.push("issues".into());
        }
        expected.sort();
        assert_eq!(sorted_keys(step), expected, "{step}");
        assert_eq!(sorted_keys(&step["controls"]), ["dataSchema", "uiSchema", "values"], "{step}");
        assert_eq!(step["controls"]["dataSchema"]["type"], "object");
        assert!(step["controls"]["uiSchema"]["properties"].is_object());
        assert_eq!(step["controls"]["values"], step["controlValues"]);
        assert_eq!(step["variables"]["type"], "object");
        assert!(step["variables"]["properties"]["subscriber"]["properties"]["firstName"].is_object());
        assert_eq!(step["workflowId"], body["workflowId"]);
        assert_eq!(step["workflowDatabaseId"], body["_id"]);
        assert_eq!(step["origin"], body["origin"]);
        assert_eq!(step["slug"], format!("{}_st_{}", step["stepId"].as_str().unwrap(), step["_id"].as_str().unwrap()));
    }
}

fn order_workflow() -> Value {
    json!({
        "name": "Order Shipped",
        "description": "Tells the buyer",
        "tags": ["orders"],
        "active": true,
        "payloadSchema": {"type": "object", "properties": {"orderId": {"type": "string"}, "total": {"type": "number", "default": 12}}},
        "steps": [
            {"name": "Inbox", "type": "in_app", "controlValues": {"subject": "Order {{ payload.orderId }}", "body": "Hi {{ subscriber.firstName }}"}},
            {"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": 5, "unit": "minutes"}},
            {"name": "Mail", "type": "email", "controlValues": {"subject": "Shipped", "body": "<p>{{ payload.total }}</p>"}}
        ],
        "preferences": {"workflow": {"all": {"enabled": true, "readOnly": false}, "channels": {"sms": {"enabled": false}}}},
        "origin": "external",
        "severity": "high"
    })
}

async fn create(server: &TestServer, body: &Value) -> Value {
    let (status, created) = server.send_json(Method::POST, "/v2/workflows", body).await;
    assert_eq!(status, 201, "{created}");
    created
}

async fn create_integration(server: &TestServer, provider: &str, channel: &str) {
    let body = json!({"providerId": provider, "channel": channel, "active": true});
    assert_eq!(server.send_json(Method::POST, "/v1/integrations", &body).await.0, 201);
}

fn control_issue_types(step: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (name, issues) in step["issues"]["controls"].as_object().into_iter().flatten() {
        for issue in issues.as_array().unwrap() {
            assert!(issue["message"].as_str().is_some_and(|m| !m.is_empty()), "{issue}");
            found.push((name.clone(), issue["issueType"].as_str().unwrap().to_string()));
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn create_returns_the_full_v2_workflow() {
    let server = TestServer::start().await;
    let body = create(&server, &order_workflow()).await;
    assert_workflow_shape(&body, true);
    assert_eq!(body["workflowId"], "order-shipped", "slugified from the name");
    assert_eq!(body["name"], "Order Shipped");
    assert_eq!(body["description"], "Tells the buyer");
    assert_eq!(body["tags"], json!(["orders"]));
    assert_eq!(body["active"], true);
    assert_eq!(body["validatePayload"], false);
    assert_eq!(body["isTranslationEnabled"], false);
    assert_eq!(body["origin"], "external");
    assert_eq!(body["severity"], "high");
    assert_eq!(body["payloadExample"], json!({"orderId": "orderId", "total": 12}));
    assert_eq!(body["preferences"]["default"]["channels"]["sms"]["enabled"], false);
    assert_eq!(body["issues"], json!({}));
    assert!(body.get("updatedBy").is_none() && body.get("lastPublishedBy").is_none());

    let steps = body["steps"].as_array().unwrap();
    assert_eq!(steps.iter().map(|s| s["stepId"].as_str().unwrap()).collect::<Vec<_>>(), ["inbox", "wait", "mail"]);
    assert_eq!(steps.iter().map(|s| s["type"].as_str().unwrap()).collect::<Vec<_>>(), ["in_app", "delay", "email"]);
    assert_eq!(steps[1]["controlValues"], json!({"type": "regular", "amount": 5, "unit": "minutes"}));
    assert_eq!(steps[0]["controls"]["uiSchema"]["group"], "IN_APP");
    assert_eq!(steps[0]["controls"]["uiSchema"]["properties"]["body"]["component"], "IN_APP_BODY");
    assert_eq!(steps[1]["controls"]["uiSchema"]["properties"]["amount"]["component"], "DELAY_AMOUNT");
    assert_eq!(steps[0]["variables"]["properties"]["payload"], body["payloadSchema"]);
    // No integrations in this environment: channel steps miss theirs, so the active workflow is in ERROR.
    assert_eq!(steps[0]["issues"]["integration"]["in_app"][0]["issueType"], "MISSING_INTEGRATION");
    assert_eq!(steps[2]["issues"]["integration"]["email"][0]["issueType"], "MISSING_INTEGRATION");
    assert!(steps[1].get("issues").is_none(), "{}", steps[1]);
    assert_eq!(body["status"], "ERROR");

    let (status, fetched) = server.get_json("/v2/workflows/order-shipped").await;
    assert_eq!(status, 200);
    assert_eq!(fetched, body);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_path_accepts_identifier_id_or_slug() {
    let server = TestServer::start().await;
    let body = create(&server, &json!({"name": "Digest me", "workflowId": "digest-me"})).await;
    assert_workflow_shape(&body, false);
    assert_eq!(body["status"], "INACTIVE");
    assert_eq!(body["origin"], "svc-cloud", "POST defaults the origin");
    assert_eq!(body["severity"], "none");
    for reference in ["digest-me", body["_id"].as_str().unwrap(), body["slug"].as_str().unwrap()] {
        let (status, fetched) = server.get_json(&format!("/v2/workflows/{reference}")).await;
        assert_eq!(status, 200, "{reference}");
        assert_eq!(fetched["_id"], body["_id"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn put_keeps_step_ids_and_recomputes_issues_and_status() {
    let server = TestServer::start().await;
    let created = create(&server, &order_workflow()).await;
    let old_steps = created["steps"].as_array().unwrap().clone();
    create_integration(&server, "svc", "in_app").await;
    create_integration(&server, "sendgrid", "email").await;

    let mut update = order_workflow();
    update["name"] = json!("Order Shipped v2");
    update["steps"] = json!([
        {"_id": null, "name": "Push it", "type": "push", "controlValues": {"subject": "S", "body": "B"}},
        {"_id": old_steps[2]["_id"], "name": "Mail renamed", "type": "email", "controlValues": {"subject": "New", "body": "Body"}},
        {"stepId": "inbox", "name": "Inbox", "type": "in_app", "controlValues": {"body": "Hello"}}
    ]);
    let (status, body) = server.send_json(Method::PUT, "/v2/workflows/order-shipped", &update).await;
    assert_eq!(status, 200, "{body}");
    assert_workflow_shape(&body, true);
    assert_eq!(body["_id"], created["_id"]);
    assert_eq!(body["createdAt"], created["createdAt"]);
    assert_eq!(body["name"], "Order Shipped v2");
    let steps = body["steps"].as_array().unwrap();
    assert_eq!(steps[1]["_id"], old_steps[2]["_id"], "kept by _id");
    assert_eq!(steps[1]["stepId"], "mail");
    assert_eq!(steps[1]["name"], "Mail renamed");
    assert_eq!(steps[2]["_id"], old_steps[0]["_id"], "kept by stepId");
    assert!(old_steps.iter().all(|old| old["_id"] != steps[0]["_id"]), "a null _id is a new step with a new id");
    assert!(steps[1].get("issues").is_none() && steps[2].get("issues").is_none(), "{body}");
    assert_eq!(steps[0]["issues"]["integration"]["push"][0]["issueType"], "MISSING_INTEGRATION");
    assert_eq!(body["status"], "ERROR");

    create_integration(&server, "fcm", "push").await;
    let (_, fetched) = server.get_json("/v2/workflows/order-shipped").await;
    assert_eq!(fetched["status"], "ACTIVE", "issues follow the integrations: {fetched}");
    assert!(fetched["steps"][0].get("issues").is_none());

    update["active"] = json!(false);
    let (_, inactive) = server.send_json(Method::PUT, "/v2/workflows/order-shipped", &update).await;
    assert_eq!(inactive["status"], "INACTIVE");
    assert_eq!(inactive["steps"][1]["_id"], old_steps[2]["_id"], "ids stay stable across saves");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_step_kind_reports_its_missing_and_illegal_controls() {
    let server = TestServer::start().await;
    let body = create(
        &server,
        &json!({
            "name": "Everything", "active": true,
            "payloadSchema": {"type": "object", "properties": {"known": {"type": "string"}}},
            "steps": [
                {"name": "a", "type": "in_app", "controlValues": {"subject": "{{ payload.unknown }}"}},
                {"name": "b", "type": "email", "controlValues": {"subject": "{{ secrets.apiKey }}"}},
                {"name": "c", "type": "sms"},
                {"name": "d", "type": "chat", "controlValues": {"body": "{{ subscriber.password }}"}},
                {"name": "e", "type": "push", "controlValues": {"body": "{{ payload.known }}"}},
                {"name": "f", "type": "delay", "controlValues": {"type": "scheduled"}},
                {"name": "g", "type": "digest", "controlValues": {"type": "timed"}},
                {"name": "h", "type": "digest", "controlValues": {"type": "backoff", "amount": 1, "unit": "hours"}},
                {"name": "i", "type": "custom", "controlValues": {"headers": {"x-token": "{{ step.events }}"}}},
                {"name": "j", "type": "delay", "controlValues": {"type": "regular", "amount": 1, "unit": "days"}}
            ]
        }),
    )
    .await;
    assert_workflow_shape(&body, true);
    let steps = body["steps"].as_array().unwrap();
    let issues: Vec<Vec<(String, String)>> = steps.iter().map(control_issue_types).collect();
    let pair = |name: &str, kind: &str| (name.to_string(), kind.to_string());
    assert_eq!(issues[0], [pair("subject", "ILLEGAL_VARIABLE_IN_CONTROL_VALUE")]);
    assert_eq!(steps[0]["issues"]["controls"]["subject"][0]["variableName"], "payload.unknown");
    assert_eq!(issues[1], [pair("body", "MISSING_VALUE"), pair("subject", "ILLEGAL_VARIABLE_IN_CONTROL_VALUE")]);
    assert_eq!(issues[2], [pair("body", "MISSING_VALUE")]);
    assert_eq!(issues[3], [pair("body", "ILLEGAL_VARIABLE_IN_CONTROL_VALUE")]);
    assert_eq!(issues[4], [pair("subject", "MISSING_VALUE")]);
    assert_eq!(issues[5], [pair("delayPath", "MISSING_VALUE")]);
    assert_eq!(issues[6], [pair("cron", "MISSING_VALUE")]);
    assert_eq!(issues[7], [pair("lookBackWindow", "MISSING_VALUE")]);
    assert_eq!(issues[8], [pair("url", "MISSING_VALUE")]);
    assert!(issues[9].is_empty() && steps[9].get("issues").is_none());
    for (index, channel) in [(0, "in_app"), (1, "email"), (2, "sms"), (3, "chat"), (4, "push")] {
        assert_eq!(steps[index]["issues"]["integration"][channel][0]["issueType"], "MISSING_INTEGRATION");
    }
    for step in &steps[5..9] {
        // The proto map is always written: empty for internal steps.
        assert_eq!(step["issues"]["integration"], json!({}), "{step}");
    }
    assert_eq!(body["status"], "ERROR");
    let expected_groups = ["IN_APP", "EMAIL", "SMS", "CHAT", "PUSH", "DELAY", "DIGEST", "DIGEST"];
    for (step, group) in steps.iter().zip(expected_groups) {
        assert_eq!(step["controls"]["uiSchema"]["group"], group);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn control_values_of_the_wrong_type_are_a_422_naming_each_path() {
    let server = TestServer::start().await;
    let (status, body) = server
        .send_json(
            Method::POST,
            "/v2/workflows",
            &json!({
                "name": "Bad controls",
                "steps": [
                    {"name": "wait", "type": "delay", "controlValues": {"type": "regular", "amount": "abc", "unit": "fortnights"}},
                    {"name": "inbox", "type": "in_app", "controlValues": {"avatar": "not a url", "redirect": {"target": "_nowhere"}}},
                    {"name": "batch", "type": "digest", "controlValues": {"lookBackWindow": {"amount": 0, "unit": "hours"}, "cron": "often"}},
                    {"name": "hook", "type": "custom", "controlValues": {"url": "ftp://x", "headers": {"n": 1}}},
                    {"name": "mail", "type": "email", "controlValues": {"editorType": "word", "layoutId": 3}}
                ]
            }),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let errors = &body["errors"];
    assert_eq!(errors["steps[0].controlValues.amount"]["value"], "abc");
    assert_eq!(errors["steps[0].controlValues.unit"]["value"], "fortnights");
    assert_eq!(errors["steps[1].controlValues.avatar"]["value"], "not a url");
    assert_eq!(errors["steps[1].controlValues.redirect.target"]["value"], "_nowhere");
    assert_eq!(errors["steps[2].controlValues.lookBackWindow.amount"]["value"], 0);
    assert_eq!(errors["steps[2].controlValues.cron"]["value"], "often");
    assert_eq!(errors["steps[3].controlValues.url"]["value"], "ftp://x");
    assert_eq!(errors["steps[3].controlValues.headers.n"]["value"], 1);
    assert_eq!(errors["steps[4].controlValues.editorType"]["value"], "word");
    assert_eq!(errors["steps[4].controlValues.layoutId"]["value"], 3);
    assert_eq!(errors.as_object().unwrap().len(), 10, "{body}");
    assert_eq!(server.get_json("/v2/workflows").await.1["totalCount"], 0, "nothing stored");
}

#[tokio::test(flavor = "multi_thread")]
async fn definitions_are_validated_whole() {
    let server = TestServer::start().await;
    let steps: Vec<Value> = (0..21).map(|i| json!({"name": format!("s{i}"), "type": "sms"})).collect();
    let (status, body) = server
        .send_json(
            Method::POST,
            "/v2/workflows",
            &json!({"name": "", "steps": steps, "payloadSchema": {"type": "not-a-type"}, "origin": "mars", "workflowId": "has space"}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let mut fields = sorted_keys(&body["errors"]);
    fields.sort();
    assert_eq!(fields, ["name", "origin", "payloadSchema", "steps", "workflowId"]);
    assert_eq!(body["errors"]["steps"]["value"], 21);
    assert_eq!(body["errors"]["payloadSchema"]["value"], json!({"type": "not-a-type"}));

    let (status, body) = server
        .send_json(
            Method::POST,
            "/v2/workflows",
            &json!({"name": "x", "steps": [{"name": " ", "type": "trigger"}, {"name": "a", "stepId": "dup", "type": "sms"},
                                          {"name": "b", "stepId": "dup", "type": "sms"}, {"name": "c"}]}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(sorted_keys(&body["errors"]), ["steps[0].name", "steps[0].type", "steps[2].stepId", "steps[3].type"]);

    let twenty: Vec<Value> = (0..20).map(|i| json!({"name": format!("s{i}"), "type": "sms"})).collect();
    assert_eq!(server.send_json(Method::POST, "/v2/workflows", &json!({"name": "max", "steps": twenty})).await.0, 201);
}

#[tokio::test(flavor = "multi_thread")]
async fn put_requires_origin_and_preferences_and_guards_the_identifier() {
    let server = TestServer::start().await;
    create(&server, &json!({"name": "Dashboard flow", "origin": "svc-cloud"})).await;
    let (status, body) =
        server.send_json(Method::PUT, "/v2/workflows/dashboard-flow", &json!({"name": "x", "steps": []})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(sorted_keys(&body["errors"]), ["origin", "preferences"]);

    let rename = json!({"name": "x", "workflowId": "renamed", "origin": "svc-cloud", "preferences": {}});
    let (status, body) = server.send_json(Method::PUT, "/v2/workflows/dashboard-flow", &rename).await;
    assert_eq!(status, 422, "{body}");
    assert!(body["errors"]["workflowId"].is_object());

    create(&server, &json!({"name": "Code flow", "workflowId": "code-flow", "origin": "external"})).await;
    let rename = json!({"name": "Code", "workflowId": "code-flow-2", "origin": "external", "preferences": {}});
    let (status, body) = server.send_json(Method::PUT, "/v2/workflows/code-flow", &rename).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["workflowId"], "code-flow-2");
    let taken = json!({"name": "Code", "workflowId": "dashboard-flow", "origin": "external", "preferences": {}});
    let (status, body) = server.send_json(Method::PUT, "/v2/workflows/code-flow-2", &taken).await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn duplicate_workflow_ids_are_a_409() {
    let server = TestServer::start().await;
    create(&server, &json!({"name": "Welcome Again"})).await;
    let (status, body) = server.send_json(Method::POST, "/v2/workflows", &json!({"name": "Welcome again!"})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["message"].as_str().unwrap().contains("welcome-again"), "{body}");
    let (status, _) =
        server.send_json(Method::POST, "/v2/workflows", &json!({"name": "Other", "workflowId": "welcome-again"})).await;
    assert_eq!(status, 409);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_workflows_are_404_and_deleted_ones_are_gone() {
    let server = TestServer::start().await;
    let put = json!({"name": "x", "origin": "svc-cloud", "preferences": {}});
    for reference in ["nope", "0195a1b2-0000-7000-8000-000000000000", "nope_wf_0195a1b2-0000-7000-8000-000000000000"] {
        let path = format!("/v2/workflows/{reference}");
        let (status, body) = server.get_json(&path).await;
        assert_eq!(status, 404, "{body}");
        assert!(body["message"].as_str().unwrap().contains(reference));
        assert_eq!(server.send_json(Method::PUT, &path, &put).await.0, 404);
        assert_eq!(server.request(Method::DELETE, &path).send().await.unwrap().status(), 404);
    }
    let created = create(&server, &json!({"name": "Short lived"})).await;
    let response = server.request(Method::DELETE, "/v2/workflows/short-lived").send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert_eq!(response.json::<serde_json::Value>().await.unwrap(), serde_json::json!({}));
    assert_eq!(server.get_json("/v2/workflows/short-lived").await.0, 404);
    assert_eq!(server.get_json(&format!("/v2/workflows/{}", created["_id"].as_str().unwrap())).await.0, 404);
    let again = create(&server, &json!({"name": "Short lived"})).await;
    assert_ne!(again["_id"], created["_id"], "the identifier is free again");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listing_pages_newest_first_filters_and_stays_in_the_environment() {
    let server = TestServer::start().await;
    for name in ["Alpha news", "Beta alerts", "Gamma NEWS digest"] {
        create(
            &server,
            &json!({"name": name, "steps": [{"name": "t", "type": "sms", "controlValues": {"body": "x"}}]}),
        )
        .await;
    }
    let (_, other_key) = server.other_environment("staging").await;
    let request = http_client()
        .post(server.url("/v2/workflows"))
        .header("authorization", format!("ApiKey {other_key}"))
        .json(&json!({"name": "Hidden news"}));
    assert_eq!(read_json(request.send().await.unwrap()).await.0, 201);

    let (status, page) = server.get_json("/v2/workflows?limit=2").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(sorted_keys(&page), ["totalCount", "workflows"]);
    assert_eq!(page["totalCount"], 3);
    let names = |page: &Value| -> Vec<String> {
        page["workflows"].as_array().unwrap().iter().map(|w| w["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names(&page), ["Gamma NEWS digest", "Beta alerts"]);
    let summary = &page["workflows"][0];
    assert_eq!(
        sorted_keys(summary),
        [
            "_id",
            "createdAt",
            "isTranslationEnabled",
            "lastPublishedAt",
            "name",
            "origin",
            "slug",
            "status",
            "stepTypeOverviews",
            "steps",
            "tags",
            "updatedAt",
            "workflowId"
        ]
    );
    assert_eq!(summary["stepTypeOverviews"], json!(["sms"]));
    assert_eq!(summary["status"], "INACTIVE");
    assert_eq!(summary["steps"][0]["type"], "sms");
    assert_eq!(summary["steps"][0]["issues"]["integration"]["sms"][0]["issueType"], "MISSING_INTEGRATION");
    assert!(summary["steps"][0]["slug"].as_str().unwrap().starts_with("t_st_"));

    let (_, page) = server.get_json("/v2/workflows?limit=2.0&offset=2").await;
    assert_eq!(names(&page), ["Alpha news"]);
    let (_, page) = server.get_json("/v2/workflows?query=news").await;
    assert_eq!(names(&page), ["Gamma NEWS digest", "Alpha news"]);
    assert_eq!(page["totalCount"], 2);
    let (_, page) = server.get_json("/v2/workflows?query=beta-al").await;
    assert_eq!(names(&page), ["Beta alerts"], "the identifier matches too");
    let (_, page) = server.get_json("/v2/workflows?query=%25").await;
    assert_eq!(page["totalCount"], 0, "wildcards match literally");
    let (status, body) = server.get_json("/v2/workflows?limit=101&offset=-1").await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(sorted_keys(&body["errors"]), ["limit", "offset"]);
    assert_eq!(server.get_json("/v2/workflows/hidden-news").await.0, 404, "another environment's workflow");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_creates_and_reads_workflows_like_rest() {
    let server = TestServer::start().await;
    let mut client = WorkflowsServiceClient::new(server.grpc_channel().await);
    let input = pb::WorkflowInput {
        name: "Grpc flow".into(),
        steps: vec![pb::WorkflowStepInput {
            name: "Wait".into(),
            r#type: pb::step_type_enum::StepType::Delay as i32,
            control_values: serde_json::from_value(json!({"type": "regular", "amount": 3, "unit": "hours"})).unwrap(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let created = client
        .create_workflow(server.grpc_request(pb::CreateWorkflowRequest { workflow: Some(input) }))
        .await
        .unwrap()
        .into_inner()
        .workflow
        .unwrap();
    assert_eq!(created.workflow_id, "grpc-flow");
    assert_eq!(created.steps[0].step_id, "wait");
    assert_eq!(created.status, pb::workflow_status_enum::WorkflowStatus::Inactive as i32);

    let fetched = client
        .get_workflow(server.grpc_request(pb::GetWorkflowRequest { workflow_id: created.slug.clone() }))
        .await
        .unwrap()
        .into_inner()
        .workflow
        .unwrap();
    assert_eq!(fetched, created);
    let listed =
        client.list_workflows(server.grpc_request(pb::ListWorkflowsRequest::default())).await.unwrap().into_inner();
    assert_eq!(listed.total_count, 1);
    client.delete_workflow(server.grpc_request(pb::DeleteWorkflowRequest { workflow_id: created.id })).await.unwrap();
    assert_eq!(server.get_json("/v2/workflows/grpc-flow").await.0, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_reports_invalid_definitions_and_unknown_workflows() {
    let server = TestServer::start().await;
    let mut client = WorkflowsServiceClient::new(server.grpc_channel().await);
    let status = client
        .create_workflow(server.grpc_request(pb::CreateWorkflowRequest {
            workflow: Some(pb::WorkflowInput { name: String::new(), ..Default::default() }),
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().contains("name"), "{status:?}");

    let status = client
        .update_workflow(server.grpc_request(pb::UpdateWorkflowRequest {
            workflow_id: "missing".into(),
            workflow: Some(pb::WorkflowInput {
                name: "x".into(),
                origin: Some("svc-cloud".into()),
                preferences: Some(Default::default()),
                ..Default::default()
            }),
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);

    let status = client
        .create_workflow(server.grpc_request(pb::CreateWorkflowRequest {
            workflow: Some(pb::WorkflowInput { name: "dup".into(), ..Default::default() }),
        }))
        .await
        .map(|_| ())
        .and(
            client
                .create_workflow(server.grpc_request(pb::CreateWorkflowRequest {
                    workflow: Some(pb::WorkflowInput { name: "dup".into(), ..Default::default() }),
                }))
                .await
                .map(|_| ()),
        )
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::AlreadyExists);
}
