//! GET /v2/subscribers: filters, orders, cursor paging in both directions, limits.

use std::collections::HashSet;

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{assert_invalid_fields, create_subscriber};
use crate::support::TestServer;

fn ids(page: &Value) -> Vec<String> {
    page["data"].as_array().unwrap().iter().map(|row| row["_id"].as_str().unwrap().to_string()).collect()
}

fn subscriber_ids(page: &Value) -> Vec<String> {
    page["data"].as_array().unwrap().iter().map(|row| row["subscriberId"].as_str().unwrap().to_string()).collect()
}

async fn search(server: &TestServer, query: &str) -> Value {
    let (status, body) = server.get_json(&format!("/v2/subscribers?{query}")).await;
    assert_eq!(status, 200, "{query}: {body}");
    body
}

async fn create_many(server: &TestServer, count: usize) -> Vec<String> {
    let mut created = Vec::new();
    for index in 0..count {
        created.push(
            create_subscriber(server, json!({ "subscriberId": format!("user-{index:03}") })).await["_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    created
}

/// Pages forward with `after` until the end, then back with `before`, while another task keeps
/// inserting subscribers: every original row is seen exactly once each way, in order.
async fn page_through_while_inserting(order: &str) {
    let server = TestServer::start().await;
    let original = create_many(&server, 25).await;
    let expected: Vec<String> =
        if order.contains("ASC") { original.clone() } else { original.iter().rev().cloned().collect() };

    let original_set: HashSet<&String> = original.iter().collect();
    let keep_original = |page: &Value| ids(page).into_iter().filter(|id| original_set.contains(id)).collect::<Vec<_>>();

    // Between every two page requests, new subscribers arrive.
    let mut late = 0;
    let mut insert_some = async |server: &TestServer| {
        for _ in 0..5 {
            create_subscriber(server, json!({ "subscriberId": format!("late-{late}") })).await;
            late += 1;
        }
    };
    let first = search(&server, &format!("limit=10&{order}")).await;
    let mut forward_pages = vec![first];
    while let Some(next) = forward_pages.last().unwrap()["next"].as_str().map(str::to_string) {
        insert_some(&server).await;
        forward_pages.push(search(&server, &format!("limit=10&{order}&after={next}")).await);
    }
    assert!(forward_pages.len() >= 3, "{} pages", forward_pages.len());
    let seen_forward: Vec<String> = forward_pages.iter().flat_map(keep_original).collect();
    assert_eq!(seen_forward, expected, "forward: no duplicate, no gap, in order");
    assert_eq!(forward_pages.last().unwrap()["next"], Value::Null);
    for page in &forward_pages[1..] {
        assert!(page["previous"].is_string(), "later pages have a previous cursor");
    }

    let last = forward_pages.last().unwrap().clone();
    let mut backward_pages = vec![last];
    while let Some(previous) = backward_pages.last().unwrap()["previous"].as_str().map(str::to_string) {
        insert_some(&server).await;
        backward_pages.push(search(&server, &format!("limit=10&{order}&before={previous}")).await);
    }
    backward_pages.reverse();
    let seen_backward: Vec<String> = backward_pages.iter().flat_map(keep_original).collect();
    assert_eq!(seen_backward, expected, "backward: no duplicate, no gap, in order");
    assert_eq!(backward_pages[0]["previous"], Value::Null);
    for page in &backward_pages[..backward_pages.len() - 1] {
        assert!(page["next"].is_string(), "earlier pages have a next cursor");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn paging_by_id_descending_survives_concurrent_inserts() {
    page_through_while_inserting("orderBy=_id&orderDirection=DESC").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn paging_by_creation_ascending_survives_concurrent_inserts() {
    page_through_while_inserting("orderBy=createdAt&orderDirection=ASC").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_single_page_has_null_cursors_and_counts() {
    let server = TestServer::start().await;
    create_many(&server, 3).await;
    let page = search(&server, "").await;
    let mut keys: Vec<&str> = page.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["data", "next", "previous", "totalCount", "totalCountCapped"]);
    assert_eq!(subscriber_ids(&page), ["user-002", "user-001", "user-000"], "default order is _id DESC");
    assert_eq!(page["next"], Value::Null);
    assert_eq!(page["previous"], Value::Null);
    assert_eq!(page["totalCount"], 3);
    assert_eq!(page["totalCountCapped"], false);
    assert_eq!(page["data"][0]["lastName"], Value::Null, "rows carry the full subscriber shape");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_filter_is_a_case_sensitive_substring_and_they_combine() {
    let server = TestServer::start().await;
    for (id, first, last, email, phone) in [
        ("ada", "Ada", "Lovelace", "ada@analytical.org", "+44 100"),
        ("grace", "Grace", "Hopper", "grace@navy.mil", "+1 200"),
        ("alan", "Alan", "Turing", "alan@bletchley.uk", "+44 300"),
        ("pct", "Per%cent", "Sign", "p_c@x.io", "+33 400"),
    ] {
        create_subscriber(
            &server,
            json!({ "subscriberId": id, "firstName": first, "lastName": last, "email": email, "phone": phone }),
        )
        .await;
    }
    let cases = [
        ("email=navy", vec!["grace"]),
        ("email=NAVY", vec![]),
        ("phone=%2B44", vec!["alan", "ada"]),
        ("subscriberId=a", vec!["alan", "grace", "ada"]),
        ("name=Ada%20Love", vec!["ada"]),
        ("name=ada", vec![]),
        ("name=Hopper", vec!["grace"]),
        ("phone=%2B44&email=bletchley", vec!["alan"]),
        ("name=Per%25", vec!["pct"]),
        ("email=p_c", vec!["pct"]),
        ("email=a_a", vec![]),
    ];
    for (query, expected) in cases {
        let page = search(&server, query).await;
        assert_eq!(subscriber_ids(&page), expected, "{query}");
        assert_eq!(page["totalCount"], expected.len(), "{query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_order_field_and_direction() {
    let server = TestServer::start().await;
    create_many(&server, 3).await;
    // Touch the oldest so that updatedAt order differs from creation order.
    server.send_json(Method::PATCH, "/v2/subscribers/user-000", &json!({ "firstName": "Touched" })).await;
    let cases = [
        ("orderBy=_id&orderDirection=ASC", ["user-000", "user-001", "user-002"]),
        ("orderBy=_id&orderDirection=DESC", ["user-002", "user-001", "user-000"]),
        ("orderBy=createdAt&orderDirection=ASC", ["user-000", "user-001", "user-002"]),
        ("orderBy=createdAt", ["user-002", "user-001", "user-000"]),
        ("orderBy=updatedAt&orderDirection=ASC", ["user-001", "user-002", "user-000"]),
        ("orderBy=updatedAt&orderDirection=desc", ["user-000", "user-002", "user-001"]),
    ];
    for (query, expected) in cases {
        assert_eq!(subscriber_ids(&search(&server, query).await), expected, "{query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn include_cursor_returns_the_cursor_row_first() {
    let server = TestServer::start().await;
    let created = create_many(&server, 5).await;
    let cursor = &created[3];
    let page = search(&server, &format!("after={cursor}&includeCursor=true&limit=2")).await;
    assert_eq!(ids(&page), [created[3].clone(), created[2].clone()]);
    let page = search(&server, &format!("after={cursor}&limit=2")).await;
    assert_eq!(ids(&page), [created[2].clone(), created[1].clone()]);
    let page = search(&server, &format!("before={cursor}&includeCursor=true&limit=2")).await;
    assert_eq!(ids(&page), [created[4].clone(), created[3].clone()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_orders_and_cursors_are_validated() {
    let server = TestServer::start().await;
    let created = create_many(&server, 3).await;
    assert_eq!(ids(&search(&server, "limit=2.0").await).len(), 2);
    assert_eq!(ids(&search(&server, "limit=100").await).len(), 3);
    assert_eq!(ids(&search(&server, "limit=1").await).len(), 1);
    assert_eq!(search(&server, "limit=1&unknownParameter=x").await["next"], created[2].as_str());

    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=2.5", "limit"),
        ("orderBy=email", "orderBy"),
        ("orderDirection=sideways", "orderDirection"),
        ("includeCursor=yes", "includeCursor"),
        ("after=not-an-id", "after"),
    ] {
        let (status, body) = server.get_json(&format!("/v2/subscribers?{query}")).await;
        assert_invalid_fields(status, &body, &[field]);
    }
    let (status, body) = server.get_json(&format!("/v2/subscribers?after={}&before={}", created[0], created[2])).await;
    assert_invalid_fields(status, &body, &["before"]);
}
