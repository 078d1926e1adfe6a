//! Bounded input: every REST endpoint that takes input, walked with oversized random values in each
//! path parameter, query parameter and body field, answers a 4xx in the contract's error shape and
//! changes nothing. The route list is read from the router's source, so a new route without cases
//! fails `every_route_is_walked`.

use std::collections::BTreeSet;

use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use rand::distr::{Alphanumeric, SampleString};
use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::fixtures::{create_integration, create_workflow, in_app_step};
use crate::subscribers::fixtures::create_subscriber;
use crate::support::{read_json, TestServer};

/// Oversized text in a body: random (incompressible), over every text limit (256 KiB for message
/// bodies), under the 512 KiB request limit so that the field rule, not the body limit, answers.
const BODY_CHARS: usize = 300_000;
/// Oversized text in a URL: over every text limit, under the HTTP server's URI length limit.
const URL_CHARS: usize = 20_000;
/// Items in an oversized list: over the general list limit of 1,000.
const LIST_ITEMS: usize = 1_001;

/// Routes whose only input is the API key: nothing to bound.
const WITHOUT_INPUT: &[(&str, &str)] =
    &[("GET", "/v1/environments/me"), ("GET", "/v1/integrations"), ("GET", "/v1/integrations/active")];

/// Documents: oversized as a whole (by size and by depth).
const DOCUMENTS: &[&str] = &["payload", "data", "overrides", "payloadSchema", "controlValues"];
/// Documents whose keys are Herald's (step controls): also oversized field by field.
const STRUCTURED_DOCUMENTS: &[&str] = &["controlValues"];

/// One route with the input it takes.
struct Endpoint {
    method: Method,
    /// The route as the router declares it, `{param}` placeholders included.
    route: &'static str,
    /// The route with valid values in its parameters.
    path: &'static str,
    query: &'static [&'static str],
    /// A valid body using every field the route reads.
    body: Option<Value>,
}

fn endpoint(method: Method, route: &'static str, path: &'static str) -> Endpoint {
    Endpoint { method, route, path, query: &[], body: None }
}

impl Endpoint {
    fn query(self, query: &'static [&'static str]) -> Self {
        Self { query, ..self }
    }

    fn body(self, body: Value) -> Self {
        Self { body: Some(body), ..self }
    }
}

fn trigger_body() -> Value {
    json!({
        "name": "walk-wf",
        "to": [{ "subscriberId": "walker-2", "email": "b@example.com", "firstName": "Bo", "lastName": "B",
                 "phone": "+15550000", "avatar": "https://a.example/b.png", "locale": "en", "timezone": "UTC",
                 "data": { "k": "v" } }],
        "payload": { "orderId": "1" },
        "overrides": { "email": { "subject": "s" } },
        "transactionId": "walk-tx-1",
        "exclude": ["walker-4"],
        "actor": { "subscriberId": "walker-3", "firstName": "Actor" },
        "tenant": { "identifier": "tenant-1", "name": "Tenant", "data": { "k": "v" } }
    })
}

fn workflow_body() -> Value {
    json!({
        "workflowId": "walk-wf-2", "name": "Walk", "description": "d", "tags": ["t"], "active": true,
        "origin": "external", "preferences": {}, "payloadSchema": { "type": "object" },
        "steps": [{ "name": "Inbox", "type": "in_app", "controlValues": { "subject": "s", "body": "b" } },
                  { "name": "Hook", "type": "custom",
                    "controlValues": { "url": "https://hook.example/x", "headers": { "X-Key": "k" } } }]
    })
}

fn endpoints() -> Vec<Endpoint> {
    let subscriber = json!({
        "subscriberId": "walker-9", "firstName": "Ada", "lastName": "L", "email": "a@example.com",
        "phone": "+15551234", "avatar": "https://a.example/a.png", "locale": "en-US", "timezone": "Europe/Paris",
        "data": { "k": "v" }
    });
    let mut profile = subscriber.clone();
    profile.as_object_mut().unwrap().remove("subscriberId");
    let integration = json!({
        "providerId": "email-webhook", "channel": "email", "name": "Hook", "identifier": "walk-hook-2",
        "active": false,
        "credentials": { "webhookUrl": "https://hook.example/mail", "secretKey": "s", "from": "a@example.com",
                         "senderName": "Shop" }
    });
    let mut integration_update = integration.clone();
    // An update reads neither the provider nor the channel.
    for fixed in ["providerId", "channel"] {
        integration_update.as_object_mut().unwrap().remove(fixed);
    }
    let sub = "/v2/subscribers/walker-1";
    vec![
        endpoint(Method::POST, "/v2/subscribers", "/v2/subscribers").body(subscriber),
        endpoint(Method::GET, "/v2/subscribers", "/v2/subscribers").query(&[
            "after",
            "before",
            "limit",
            "orderDirection",
            "orderBy",
            "includeCursor",
            "email",
            "name",
            "phone",
            "subscriberId",
        ]),
        endpoint(Method::GET, "/v2/subscribers/{subscriber_id}", sub),
        endpoint(Method::PATCH, "/v2/subscribers/{subscriber_id}", sub).body(profile),
        endpoint(Method::DELETE, "/v2/subscribers/{subscriber_id}", sub),
        endpoint(Method::PATCH, "/v1/subscribers/{subscriber_id}/credentials", "/v1/subscribers/walker-1/credentials")
            .body(json!({ "providerId": "slack", "integrationIdentifier": "walk-slack",
                          "credentials": { "webhookUrl": "https://hooks.example/1", "channel": "general",
                                           "deviceTokens": ["t1"] } })),
        endpoint(Method::GET, "/v2/subscribers/{subscriber_id}/preferences", "/v2/subscribers/walker-1/preferences"),
        endpoint(Method::PATCH, "/v2/subscribers/{subscriber_id}/preferences", "/v2/subscribers/walker-1/preferences")
            .body(json!({ "channels": { "email": false }, "workflowId": "walk-wf",
                          "schedule": { "isEnabled": true, "weeklySchedule": {
                              "monday": { "isEnabled": true, "hours": [{ "start": "09:00 AM", "end": "05:00 PM" }] } } } })),
        endpoint(Method::POST, "/v1/integrations", "/v1/integrations").body(integration),
        endpoint(Method::GET, "/v1/integrations/{integration_id}", "/v1/integrations/INTEGRATION"),
        endpoint(Method::PUT, "/v1/integrations/{integration_id}", "/v1/integrations/INTEGRATION")
            .body(integration_update),
        endpoint(Method::DELETE, "/v1/integrations/{integration_id}", "/v1/integrations/INTEGRATION"),
        endpoint(Method::POST, "/v1/integrations/{integration_id}/set-primary", "/v1/integrations/INTEGRATION/set-primary"),
        endpoint(Method::POST, "/v2/workflows", "/v2/workflows").body(workflow_body()),
        endpoint(Method::GET, "/v2/workflows", "/v2/workflows").query(&["offset", "limit", "query"]),
        endpoint(Method::GET, "/v2/workflows/{workflow_id}", "/v2/workflows/walk-wf"),
        endpoint(Method::PUT, "/v2/workflows/{workflow_id}", "/v2/workflows/walk-wf").body(workflow_body()),
        endpoint(Method::DELETE, "/v2/workflows/{workflow_id}", "/v2/workflows/walk-wf"),
        endpoint(Method::POST, "/v1/events/trigger", "/v1/events/trigger").body(trigger_body()),
        endpoint(Method::POST, "/v1/events/trigger/bulk", "/v1/events/trigger/bulk")
            .body(json!({ "events": [trigger_body()] })),
        endpoint(Method::DELETE, "/v1/events/trigger/{transaction_id}", "/v1/events/trigger/walk-tx-0"),
        endpoint(Method::GET, "/v1/notifications", "/v1/notifications").query(&[
            "channels",
            "templates",
            "emails",
            "search",
            "subscriberIds",
            "severity",
            "page",
            "limit",
            "transactionId",
            "topicKey",
            "after",
            "before",
        ]),
        endpoint(Method::GET, "/v1/notifications/{notification_id}", "/v1/notifications/NOTIFICATION"),
        endpoint(Method::GET, "/v1/messages", "/v1/messages")
            .query(&["channel", "subscriberId", "transactionId", "page", "limit"]),
        endpoint(Method::POST, "/v1/subscribers/{subscriber_id}/messages/mark-as", "/v1/subscribers/walker-1/messages/mark-as")
            .body(json!({ "messageId": ["MESSAGE"], "markAs": "read" })),
        endpoint(Method::POST, "/v1/webhooks/{environment_id}/{integration_id}", "/v1/webhooks/ENVIRONMENT/INTEGRATION"),
        endpoint(Method::POST, "/v1/topics", "/v1/topics").body(json!({ "key": "walk-topic", "name": "Walk" })),
        endpoint(Method::GET, "/v1/topics", "/v1/topics").query(&["page", "pageSize", "key"]),
        endpoint(Method::GET, "/v1/topics/{topic_key}", "/v1/topics/walk-topic"),
        endpoint(Method::PATCH, "/v1/topics/{topic_key}", "/v1/topics/walk-topic").body(json!({ "name": "Walk" })),
        endpoint(Method::DELETE, "/v1/topics/{topic_key}", "/v1/topics/walk-topic"),
        endpoint(Method::POST, "/v1/topics/{topic_key}/subscribers", "/v1/topics/walk-topic/subscribers")
            .body(json!({ "subscribers": ["walker-1"] })),
        endpoint(Method::POST, "/v1/topics/{topic_key}/subscribers/removal", "/v1/topics/walk-topic/subscribers/removal")
            .body(json!({ "subscribers": ["walker-1"] })),
        endpoint(
            Method::GET,
            "/v1/topics/{topic_key}/subscribers/{subscriber_id}",
            "/v1/topics/walk-topic/subscribers/walker-1",
        ),
    ]
}

/// One oversized request: what it changed from the valid one, and the request itself.
struct Case {
    what: String,
    method: Method,
    path: String,
    body: Option<Value>,
}

fn random_text(chars: usize) -> String {
    Alphanumeric.sample_string(&mut rand::rng(), chars)
}

/// Every oversized variant of `endpoint`: each path segment that is a parameter, each query
/// parameter, each body field (text, list and document).
fn cases(endpoint: &Endpoint, ids: &[(&str, String)]) -> Vec<Case> {
    let mut path = endpoint.path.to_string();
    for (placeholder, id) in ids {
        path = path.replace(placeholder, id);
    }
    let case =
        |what: String, path: String, body: Option<Value>| Case { what, method: endpoint.method.clone(), path, body };
    let mut cases = Vec::new();
    let route_segments: Vec<&str> = endpoint.route.split('/').collect();
    for (index, segment) in route_segments.iter().enumerate() {
        if segment.starts_with('{') {
            let mut segments: Vec<String> = path.split('/').map(str::to_string).collect();
            segments[index] = random_text(URL_CHARS);
            cases.push(case(format!("path {segment}"), segments.join("/"), endpoint.body.clone()));
        }
    }
    for parameter in endpoint.query {
        cases.push(case(format!("query {parameter}"), format!("{path}?{parameter}={}", random_text(URL_CHARS)), None));
    }
    if let Some(body) = &endpoint.body {
        for (field, variant) in oversized_variants(body, "") {
            cases.push(case(format!("body {field}"), path.clone(), Some(variant)));
        }
    }
    cases
}

/// `value` once per field with that field oversized: text replaced by random text, a list grown
/// past the list limit, a document replaced by one over the document size and one over the depth.
fn oversized_variants(value: &Value, at: &str) -> Vec<(String, Value)> {
    let mut variants = Vec::new();
    match value {
        Value::String(_) => variants.push((at.to_string(), Value::String(random_text(BODY_CHARS)))),
        Value::Array(items) => {
            variants.push((format!("{at} (length)"), Value::Array(vec![items[0].clone(); LIST_ITEMS])));
            for (field, item) in oversized_variants(&items[0], &format!("{at}.0")) {
                let mut changed = items.clone();
                changed[0] = item;
                variants.push((field, Value::Array(changed)));
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                let path = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
                let mut replacements = Vec::new();
                if DOCUMENTS.contains(&name.as_str()) {
                    replacements.push((format!("{path} (size)"), json!({ "blob": random_text(BODY_CHARS) })));
                    replacements.push((format!("{path} (depth)"), deep_document(40)));
                }
                if !DOCUMENTS.contains(&name.as_str()) || STRUCTURED_DOCUMENTS.contains(&name.as_str()) {
                    replacements.extend(oversized_variants(field, &path));
                }
                for (label, replacement) in replacements {
                    let mut changed = fields.clone();
                    changed.insert(name.clone(), replacement);
                    variants.push((label, Value::Object(changed)));
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
    variants
}

fn deep_document(levels: usize) -> Value {
    (0..levels).fold(json!("leaf"), |inner, _| json!({ "a": inner }))
}

/// A digest of every row of every table of the server's schema: equal digests, nothing written.
async fn database_digest(server: &TestServer) -> String {
    // Every table but the API processes' heartbeats, which move on their own.
    #[derive(diesel::QueryableByName)]
    struct Digest {
        #[diesel(sql_type = Text)]
        digest: String,
    }
    let mut conn = server.pool.get().await.expect("connection");
    let digest: Digest = diesel::sql_query(
        "SELECT string_agg(table_name || '=' || (xpath('/row/d/text()', query_to_xml(format(
             'SELECT count(*) || '':'' || md5(coalesce(string_agg(t::text, '','' ORDER BY t::text), '''')) AS d
              FROM %I.%I t', table_schema, table_name), false, true, '')))[1]::text, ' ' ORDER BY table_name) AS digest
         FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'
           AND table_name <> 'api_processes'",
    )
    .bind::<Text, _>(&server.schema)
    .get_result(&mut conn)
    .await
    .expect("digest");
    digest.digest
}

/// The ids the paths need, from resources made over the API.
async fn seed(server: &TestServer) -> Vec<(&'static str, String)> {
    create_subscriber(server, json!({ "subscriberId": "walker-1", "firstName": "Ada" })).await;
    let email = create_integration(
        server,
        json!({ "providerId": "email-webhook", "channel": "email", "identifier": "walk-hook", "active": true,
                "credentials": { "webhookUrl": "https://hook.example/mail", "secretKey": "s" } }),
    )
    .await;
    create_integration(
        server,
        json!({ "providerId": "slack", "channel": "chat", "identifier": "walk-slack", "active": true,
                "credentials": {} }),
    )
    .await;
    create_workflow(server, "walk-wf", json!([in_app_step()])).await;
    vec![
        ("INTEGRATION", email["_id"].as_str().unwrap().to_string()),
        ("ENVIRONMENT", server.environment_id.to_string()),
        ("NOTIFICATION", uuid::Uuid::now_v7().to_string()),
        ("MESSAGE", uuid::Uuid::now_v7().to_string()),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn every_endpoint_refuses_oversized_values_with_a_4xx_and_changes_nothing() {
    let server = TestServer::start().await;
    let ids = seed(&server).await;
    let before = database_digest(&server).await;
    let mut walked = 0;
    for endpoint in endpoints() {
        for case in cases(&endpoint, &ids) {
            let mut request = server.request(case.method.clone(), &case.path);
            if let Some(body) = &case.body {
                request = request.json(body);
            }
            let (status, body) = read_json(request.send().await.expect("request sent")).await;
            let label = format!("{} {} — {}", case.method, endpoint.route, case.what);
            let shown: String = body.to_string().chars().take(300).collect();
            assert!((400..500).contains(&status) && status != 405, "{label}: {status} {shown}");
            assert_eq!(body["statusCode"], status, "{label}: {shown}");
            let path = case.path.split('?').next().unwrap();
            assert_eq!(body["path"], path, "{label}");
            for field in ["timestamp", "message", "error"] {
                assert!(body[field].is_string(), "{label}: {field} in {shown}");
            }
            walked += 1;
        }
    }
    assert!(walked > 150, "only {walked} cases");
    assert_eq!(database_digest(&server).await, before, "an oversized request changed the database");
}

/// A field over its limit is a 422 naming the field and the limit, the echoed value cut short.
#[tokio::test(flavor = "multi_thread")]
async fn the_422_names_the_field_and_its_limit() {
    let server = TestServer::start().await;
    let identifier = random_text(100_000);
    let body = json!({ "providerId": "email-webhook", "channel": "email", "identifier": identifier, "name": "n" });
    let (status, answer) = server.send_json(Method::POST, "/v1/integrations", &body).await;
    assert_eq!(status, 422, "{}", answer["message"]);
    let error = &answer["errors"]["identifier"];
    assert_eq!(error["messages"], json!(["identifier must be at most 255 characters"]));
    assert_eq!(error["value"], format!("{}…", &identifier[..64]));
    assert!(server.get_json("/v1/integrations").await.1.as_array().unwrap().is_empty());
}

/// gRPC callers meet the same bounds: INVALID_ARGUMENT with the field violation.
#[tokio::test(flavor = "multi_thread")]
async fn grpc_requests_are_bounded_the_same_way() {
    use herald::proto::herald::v1 as pb;
    use pb::subscribers_service_client::SubscribersServiceClient;
    use tonic_types::StatusExt;

    let server = TestServer::start().await;
    let mut client = SubscribersServiceClient::new(server.grpc_channel().await);
    let request = pb::GetSubscriberRequest { subscriber_id: random_text(10_000) };
    let status = client.get_subscriber(server.grpc_request(request)).await.expect_err("refused");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let violations = status.get_details_bad_request().expect("field violations").field_violations;
    assert_eq!(violations[0].field, "subscriberId");
    assert_eq!(violations[0].description, "subscriberId must be at most 255 characters");
}

/// The REST routes the router serves with input (the API's and the providers' webhook), as
/// `METHOD /path`: the declarations the router is built from.
fn declared_routes() -> BTreeSet<String> {
    let api = herald::rest::routes().operations;
    let webhooks = herald::rest::webhook_routes().operations;
    api.iter().chain(&webhooks).map(|operation| format!("{} {}", operation.method, operation.path)).collect()
}

#[test]
fn every_route_is_walked() {
    let walked: BTreeSet<String> = endpoints()
        .iter()
        .map(|endpoint| format!("{} {}", endpoint.method, endpoint.route))
        .chain(WITHOUT_INPUT.iter().map(|(method, route)| format!("{method} {route}")))
        .collect();
    assert_eq!(declared_routes(), walked, "a route without oversized-input cases (or a case without a route)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nul_character_in_any_query_parameter_is_a_400_even_where_no_query_reads_it() {
    let server = TestServer::start().await;
    // `topicKey` never reaches the database (no event has a topic key), `transactionId` does.
    for query in ["topicKey=a%00b", "transactionId=a%00b"] {
        let (status, body) = server.get_json(&format!("/v1/notifications?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["message"], "Text must not contain NUL (\\u0000) characters", "{query}");
    }
}
