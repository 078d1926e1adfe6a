//! REST routes of triggers. The JSON body allows shorthand the proto spells out: `to` may be a
//! subscriberId, a subscriber object or an array of either; `actor` a subscriberId or an object;
//! `tenant` an identifier or an object. Each is rewritten into the proto's JSON form before parsing.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Extension;
use http::{HeaderName, HeaderValue, StatusCode};
use serde_json::{json, Value};

use super::body::from_value;
use super::topics::key_schema;
use super::{grpc_request, json_response, parse_json, RestResult};
use crate::domain::tenancy::Tenant;
use crate::engine::trigger::request::MAX_RECIPIENTS;
use crate::engine::trigger::MAX_BULK_TRIGGERS;
use crate::error::AppError;
use crate::grpc::Services;
use crate::openapi::schemas::{array_of, input, limited_text, output};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::events_service_server::EventsService;

/// How many jobs a cancel stopped (the body only says whether it stopped any).
const CANCELED_JOB_COUNT_HEADER: HeaderName = HeaderName::from_static("herald-canceled-job-count");

pub fn routes() -> ApiRoutes<Services> {
    const TAG: &str = "Events";
    let trigger = Operation::post("/v1/events/trigger", "triggerEvent", TAG)
        .summary("Trigger a workflow for its recipients")
        .body(input("TriggerEventRequest"))
        .answers(201, output("TriggerEventResponse"));
    // Each entry is a trigger as `triggerEvent` takes it; one the trigger would refuse gets an `error`
    // result of its own, so any object is accepted here.
    let trigger_schema = input("TriggerEventRequest")["$ref"].clone();
    let mut events = array_of(json!({
        "type": "object",
        "description": format!("A trigger ({trigger_schema}); an invalid one is answered with an error result"),
    }));
    events["maxItems"] = json!(MAX_BULK_TRIGGERS);
    let bulk = Operation::post("/v1/events/trigger/bulk", "triggerEventBulk", TAG)
        .summary("Trigger several events; one answer per event, in order")
        .body(json!({"type": "object", "required": ["events"], "properties": {"events": events}}))
        .answers(201, array_of(output("TriggerEventResponse")));
    let cancel = Operation::delete("/v1/events/trigger/{transaction_id}", "cancelTriggeredEvent", TAG)
        .summary("Cancel what is still pending of a triggered event")
        .answers(
            200,
            json!({
                "type": "object",
                "required": ["data"],
                "additionalProperties": false,
                "properties": {"data": {"type": "boolean", "description": "Whether anything was left to cancel."}},
            }),
        )
        .errors(&[404]);
    ApiRoutes::new()
        .add(trigger, trigger_event)
        .add(bulk, trigger_event_bulk)
        .add(cancel, cancel_triggered_event)
        .reshape("TriggerEventRequest", Reshape::Property("to", recipients_schema()))
        .reshape("TriggerEventRequest", Reshape::Property("actor", actor_schema()))
        .reshape("TriggerEventRequest", Reshape::Property("tenant", tenant_schema()))
        .reshape("TriggerEventRequest", Reshape::Required(&["name", "to"]))
        .reshape("TriggerEventResponse", Reshape::Optional(&["error"]))
}

/// A subscriber object in a trigger: upserted, so it must name its subscriberId.
fn subscriber_object() -> Value {
    json!({"allOf": [input("TriggerSubscriber"), {"type": "object", "required": ["subscriberId"]}]})
}

/// `to`: one recipient or a list; a recipient is a subscriberId, a subscriber object or a topic.
/// Any other entry is not refused: the trigger answers `invalid_recipients` when no entry is valid.
fn recipients_schema() -> Value {
    let topic = json!({
        "type": "object",
        "required": ["type", "topicKey"],
        "properties": {"type": {"const": "Topic"}, "topicKey": key_schema()},
    });
    let recipient = json!({
        "anyOf": [limited_text("subscriberId"), subscriber_object(), topic, {"description": "Anything else: not a recipient"}],
    });
    let mut list = array_of(recipient.clone());
    list["maxItems"] = json!(MAX_RECIPIENTS);
    json!({"anyOf": [recipient, list]})
}

/// `actor`: a subscriberId or a subscriber object.
fn actor_schema() -> Value {
    json!({"anyOf": [limited_text("subscriberId"), subscriber_object(), {"type": "null"}]})
}

/// `tenant`: an identifier (the tenant must exist) or a tenant object (upserted).
fn tenant_schema() -> Value {
    json!({"anyOf": [limited_text("identifier"), input("Tenant"), {"type": "null"}]})
}

async fn trigger_event(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    body: Bytes,
) -> RestResult {
    let request = trigger_request(parse_json(&body)?)?;
    let response = services.events.trigger_event(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::CREATED, &response_json(response)?))
}

/// `{events: [trigger, …]}` → one result per trigger, in order (a JSON array).
async fn trigger_event_bulk(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    body: Bytes,
) -> RestResult {
    let body: Value = parse_json(&body)?;
    let events = match body.get("events") {
        Some(Value::Array(events)) => events.clone(),
        other => {
            let value = other.cloned().unwrap_or(Value::Null);
            return Err(AppError::invalid_field("events", "events must be an array of triggers", value));
        }
    };
    let events = events.into_iter().map(trigger_request).collect::<Result<Vec<_>, _>>()?;
    let request = pb::TriggerEventBulkRequest { events };
    let response = services.events.trigger_event_bulk(grpc_request(tenant, request)).await?.into_inner();
    let results = response.results.into_iter().map(response_json).collect::<Result<Vec<_>, _>>()?;
    Ok(json_response(StatusCode::CREATED, &results))
}

async fn cancel_triggered_event(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(transaction_id): Path<String>,
) -> RestResult {
    let request = pb::CancelTriggeredEventRequest { transaction_id };
    let response = services.events.cancel_triggered_event(grpc_request(tenant, request)).await?.into_inner();
    // The reference service's shape, which its strict clients require; the count goes in a header.
    let mut answer = json_response(StatusCode::OK, &json!({ "data": response.canceled }));
    answer.headers_mut().insert(CANCELED_JOB_COUNT_HEADER, HeaderValue::from(response.canceled_job_count));
    Ok(answer)
}

/// The proto request of one JSON trigger body.
fn trigger_request(mut body: Value) -> Result<pb::TriggerEventRequest, AppError> {
    let Value::Object(fields) = &mut body else {
        return Err(AppError::BadRequest("Invalid request body: a trigger is a JSON object".into()));
    };
    if let Some(to) = fields.remove("to") {
        let entries = match to {
            Value::Array(entries) => entries,
            single => vec![single],
        };
        fields.insert("to".into(), Value::Array(entries.into_iter().map(recipient).collect()));
    }
    if let Some(actor) = fields.remove("actor").filter(|actor| !actor.is_null()) {
        let actor = match actor {
            Value::String(id) => json!({ "subscriberId": id }),
            other => json!({ "subscriber": other }),
        };
        fields.insert("actor".into(), actor);
    }
    if let Some(tenant) = fields.remove("tenant").filter(|tenant| !tenant.is_null()) {
        let tenant = match tenant {
            Value::String(identifier) => json!({ "identifier": identifier }),
            other => json!({ "tenant": other }),
        };
        fields.insert("tenant".into(), tenant);
    }
    from_value(body)
}

/// One `to` entry in the proto's form: a subscriberId, a topic (`{type: "Topic", topicKey}`), a
/// subscriber object (it has a string `subscriberId`), or anything else (a malformed entry).
fn recipient(entry: Value) -> Value {
    match entry {
        Value::String(id) => json!({ "subscriberId": id }),
        Value::Object(object)
            if object.get("type").and_then(Value::as_str) == Some("Topic")
                && object.get("topicKey").is_some_and(Value::is_string) =>
        {
            json!({ "topic": { "topicKey": object["topicKey"] } })
        }
        Value::Object(object) if object.get("subscriberId").is_some_and(Value::is_string) => {
            json!({ "subscriber": object })
        }
        Value::Object(object) => json!({ "other": object }),
        other => json!({ "other": { "value": other } }),
    }
}

/// The trigger response: `error` only when there is one (the spec: "present in case of error").
fn response_json(response: pb::TriggerEventResponse) -> Result<Value, AppError> {
    let mut json = serde_json::to_value(response).map_err(AppError::internal)?;
    if json["error"].as_array().is_some_and(Vec::is_empty) {
        json.as_object_mut().map(|fields| fields.remove("error"));
    }
    Ok(json)
}
