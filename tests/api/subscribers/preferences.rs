//! GET and PATCH /v2/subscribers/{subscriberId}/preferences.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{assert_invalid_fields, create_subscriber, insert_workflow};
use crate::support::TestServer;

const PATH: &str = "/v2/subscribers/user-1/preferences";

fn all_on() -> Value {
    json!({ "in_app": true, "email": true, "sms": true, "chat": true, "push": true })
}

#[tokio::test(flavor = "multi_thread")]
async fn defaults_resolve_from_the_workflows_and_list_only_their_channels() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    let digest = insert_workflow(
        &server,
        "digest",
        false,
        &["in_app", "delay", "email"],
        json!({ "default": { "all": { "enabled": true }, "channels": { "email": { "enabled": false } } } }),
    )
    .await;
    insert_workflow(&server, "password-reset", true, &["email"], json!({})).await;

    let (status, body) = server.get_json(PATH).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["global"], json!({ "enabled": true, "channels": all_on() }));
    let workflows = body["workflows"].as_array().unwrap();
    assert_eq!(workflows.len(), 1, "critical workflows are not the subscriber's to change: {body}");
    let digest_id = digest.to_string();
    assert_eq!(
        workflows[0],
        json!({
            "enabled": true,
            "channels": { "in_app": true, "email": false },
            "overrides": [{ "channel": "in_app", "source": "template" }, { "channel": "email", "source": "template" }],
            "workflow": { "slug": format!("digest_wf_{digest_id}"), "identifier": "digest", "name": "digest name", "updatedAt": workflows[0]["workflow"]["updatedAt"] }
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn global_then_per_workflow_updates_win_in_that_order() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    let workflow = insert_workflow(&server, "news", false, &["email", "sms"], json!({})).await;

    let (status, body) =
        server.send_json(Method::PATCH, PATH, &json!({ "channels": { "email": false, "sms": false } })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["global"]["channels"]["email"], false);
    assert_eq!(body["global"]["channels"]["in_app"], true);
    assert_eq!(body["workflows"][0]["channels"], json!({ "email": false, "sms": false }));
    assert_eq!(body["workflows"][0]["overrides"][0], json!({ "channel": "email", "source": "subscriber" }));

    // Per workflow, named by each of its three names in turn; flags merge.
    for reference in ["news".to_string(), workflow.to_string(), format!("news_wf_{workflow}")] {
        let (status, _) = server
            .send_json(Method::PATCH, PATH, &json!({ "workflowId": reference, "channels": { "sms": true } }))
            .await;
        assert_eq!(status, 200, "{reference}");
    }
    let (_, body) =
        server.send_json(Method::PATCH, PATH, &json!({ "workflowId": "news", "channels": { "email": true } })).await;
    assert_eq!(body["workflows"][0]["channels"], json!({ "email": true, "sms": true }));
    assert_eq!(body["global"]["channels"]["email"], false, "the global flag stays");
    assert_eq!(server.get_json(PATH).await.1, body);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_schedule_round_trips_in_12_hour_form() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    let schedule = json!({
        "isEnabled": true,
        "weeklySchedule": {
            "monday": { "isEnabled": true, "hours": [{ "start": "09:00", "end": "17:30" }] },
            "saturday": { "isEnabled": false, "hours": [] },
            "sunday": { "isEnabled": true, "hours": [{ "start": "10:00 pm", "end": "02:00 AM" }] }
        }
    });
    let (status, body) = server.send_json(Method::PATCH, PATH, &json!({ "schedule": schedule })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["global"]["schedule"],
        json!({
            "isEnabled": true,
            "weeklySchedule": {
                "monday": { "isEnabled": true, "hours": [{ "start": "09:00 AM", "end": "05:30 PM" }] },
                "saturday": { "isEnabled": false, "hours": [] },
                "sunday": { "isEnabled": true, "hours": [{ "start": "10:00 PM", "end": "02:00 AM" }] }
            }
        })
    );
    // A flags-only update keeps the schedule.
    let (_, body) = server.send_json(Method::PATCH, PATH, &json!({ "channels": { "push": false } })).await;
    assert_eq!(body["global"]["schedule"]["weeklySchedule"]["monday"]["hours"][0]["end"], "05:30 PM");
    assert_eq!(server.get_json(PATH).await.1["global"]["schedule"], body["global"]["schedule"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_times_unknown_and_critical_workflows_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    insert_workflow(&server, "security-alert", true, &["email"], json!({})).await;
    let before = server.get_json(PATH).await.1;

    let bad_schedule = json!({ "schedule": { "isEnabled": true, "weeklySchedule": { "friday": { "isEnabled": true, "hours": [{ "start": "25:00", "end": "nine" }] } } } });
    let (status, body) = server.send_json(Method::PATCH, PATH, &bad_schedule).await;
    assert_invalid_fields(
        status,
        &body,
        &["schedule.weeklySchedule.friday.hours[0].start", "schedule.weeklySchedule.friday.hours[0].end"],
    );

    let (status, body) =
        server.send_json(Method::PATCH, PATH, &json!({ "workflowId": "nope", "channels": { "email": false } })).await;
    assert_eq!(status, 404, "{body}");
    assert!(body["message"].as_str().unwrap().contains("nope"));

    let (status, body) = server
        .send_json(Method::PATCH, PATH, &json!({ "workflowId": "security-alert", "channels": { "email": false } }))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("critical"));

    let (status, body) = server.send_json(Method::PATCH, PATH, &json!({ "schedule": { "weeklySchedule": {} } })).await;
    assert_invalid_fields(status, &body, &["schedule.isEnabled"]);

    let (status, body) = server.send_json(Method::PATCH, PATH, &json!({ "channels": { "email": "no" } })).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(server.get_json(PATH).await.1, before);
}
