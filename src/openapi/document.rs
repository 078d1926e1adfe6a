//! Assembles the OpenAPI 3.1 document from the declared operations, the REST shapes and the
//! generated message schemas.

use std::collections::BTreeMap;

use http::Method;
use serde_json::{json, Map, Value};

use super::operation::{Operation, Reshape};
use super::schemas::{limited_text, reference, Generator};
use crate::domain::limits::IDENTIFIER_CHARS;

const ERROR: &str = "Error";

/// The whole document: `operations` (each path written as the specification writes it), with the
/// message schemas they refer to, reshaped by `reshapes` as the REST layer writes them.
pub fn build(operations: &[Operation], reshapes: &[(&'static str, Reshape)]) -> Value {
    let mut generator = Generator::new();
    for operation in operations {
        // A request message carries its path's parameters, which the REST layer fills from the path.
        let request = operation.request.as_ref().and_then(referenced_component);
        if let Some(message) = request.filter(|message| message.ends_with("Request")) {
            generator.omit(&message, path_parameters(&operation.document_path()));
        }
    }
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for operation in operations {
        let method = operation.method.as_str().to_ascii_lowercase();
        paths.entry(operation.document_path()).or_default().insert(method, operation_object(operation));
    }
    let paths: Map<String, Value> = paths.into_iter().map(|(path, methods)| (path, Value::Object(methods))).collect();
    let paths = Value::Object(paths);
    for name in references(&paths).into_iter().filter(|name| name != ERROR) {
        generator.ensure(&name);
    }
    for (component, reshape) in reshapes {
        generator.ensure(component);
        let schema = generator.schemas.get_mut(*component).expect("just generated");
        reshape.apply(schema);
        for name in references(&reshape_schema(reshape)) {
            generator.ensure(&name);
        }
    }
    let mut schemas = reachable(&paths, generator.schemas);
    schemas.insert(ERROR.into(), error_schema());
    let mut paths = paths;
    mark_required_bodies(&mut paths, &schemas);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Herald",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Herald's REST API: the notification API specification's paths and shapes. Every \
                answer described here is checked against this document by Herald's test suite, and the \
                server is fuzzed against it (schemathesis). Message schemas are generated from \
                `proto/herald/v1`, the model gRPC serves too.",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "security": [{"ApiKey": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "ApiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Authorization: ApiKey <key>`: the key names the environment every call acts in.",
                },
                "SubscriberToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "`Authorization: Bearer <token>`: an inbox session token (`POST /v1/inbox/session`), \
                        naming one subscriber of one environment; it expires after an hour.",
                },
            },
        },
    })
}

/// `{subscriber_id}`-style parameters of a document path, in camelCase as written there.
fn path_parameters(path: &str) -> Vec<String> {
    path.split('{').skip(1).filter_map(|part| part.split_once('}').map(|(name, _)| name.to_string())).collect()
}

/// An empty body reads as `{}`, so a body is required only where its schema requires a field.
fn mark_required_bodies(paths: &mut Value, schemas: &Map<String, Value>) {
    for item in paths.as_object_mut().expect("paths").values_mut() {
        for operation in item.as_object_mut().expect("a path item").values_mut() {
            let Some(body) = operation.get_mut("requestBody") else { continue };
            let schema = &body["content"]["application/json"]["schema"];
            let schema = referenced_component(schema).and_then(|name| schemas.get(&name)).unwrap_or(schema);
            let required = schema.get("required").and_then(Value::as_array).is_some_and(|fields| !fields.is_empty());
            body["required"] = json!(required);
        }
    }
}

/// What a reshape may refer to.
fn reshape_schema(reshape: &Reshape) -> Value {
    match reshape {
        Reshape::Property(_, schema) => schema.clone(),
        Reshape::Nullable(_) | Reshape::Optional(_) | Reshape::Required(_) => Value::Null,
    }
}

/// The components `paths` refer to, directly or through other components: a reshape can leave a
/// generated one unused (the proto's `TriggerActor`, read by REST as a shorthand).
fn reachable(paths: &Value, mut generated: BTreeMap<String, Value>) -> Map<String, Value> {
    let mut kept = Map::new();
    let mut pending = references(paths);
    while let Some(name) = pending.pop() {
        if let Some(schema) = generated.remove(&name) {
            pending.extend(references(&schema));
            kept.insert(name, schema);
        }
    }
    kept
}

fn referenced_component(schema: &Value) -> Option<String> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/components/schemas/").map(str::to_string)
}

/// Every component named by a `$ref` under `value`.
fn references(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                found.extend(referenced_component(value));
                stack.extend(object.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

fn is_write(method: &Method) -> bool {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH | Method::DELETE)
}

fn operation_object(operation: &Operation) -> Value {
    let mut parameters: Vec<Value> = path_parameters(&operation.document_path())
        .into_iter()
        .map(|name| {
            let declared = operation.path_schemas.iter().find(|(declared, _)| *declared == name);
            let schema = declared.map_or_else(|| limited_text(&name), |(_, schema)| schema.clone());
            json!({"name": name, "in": "path", "required": true, "schema": schema})
        })
        .collect();
    parameters.extend(operation.query.iter().cloned());
    let write = is_write(&operation.method) && !operation.public;
    if write {
        parameters.push(json!({
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Makes a retry safe: the same request with the same key within 24 hours gets the \
                first answer again, byte for byte, with `Idempotency-Replay: true`, and runs nothing; while \
                the first still runs it is a 409; another request with that key is a 422.",
            "schema": {"type": "string", "minLength": 1, "maxLength": IDENTIFIER_CHARS},
        }));
    }
    let mut object = json!({
        "operationId": operation.id,
        "tags": [operation.tag],
        "responses": responses(operation, write),
    });
    if !operation.summary.is_empty() {
        object["summary"] = json!(operation.summary);
    }
    if !parameters.is_empty() {
        object["parameters"] = Value::Array(parameters);
    }
    if let Some(schema) = &operation.request {
        object["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": schema}}});
    }
    if operation.public {
        object["security"] = json!([]);
    } else if operation.subscriber_token {
        object["security"] = json!([{"SubscriberToken": []}]);
    }
    object
}

fn responses(operation: &Operation, write: bool) -> Value {
    let mut responses = Map::new();
    let headers = success_headers(operation, write);
    for (status, body) in &operation.answers {
        let mut answer = json!({"description": description(*status)});
        if !headers.is_empty() {
            answer["headers"] = Value::Object(headers.clone());
        }
        if let Some((media, schema)) = body {
            let mut content = Map::new();
            content.insert(media.to_string(), json!({"schema": schema}));
            answer["content"] = Value::Object(content);
        }
        responses.insert(status.to_string(), answer);
    }
    for status in error_statuses(operation, write) {
        let mut answer = json!({"description": description(status)});
        // A 414 comes from the HTTP layer, without a body.
        if status != 414 {
            answer["content"] = json!({"application/json": {"schema": reference(ERROR)}});
        }
        if matches!(status, 429 | 503) {
            answer["headers"] = json!({"Retry-After": {
                "description": "Seconds to wait before retrying.",
                "schema": {"type": "integer", "minimum": 1},
            }});
        }
        responses.insert(status.to_string(), answer);
    }
    Value::Object(responses)
}

/// The error statuses of `operation`: its own, and those of the layers every route passes.
fn error_statuses(operation: &Operation, write: bool) -> Vec<u16> {
    let mut statuses = operation.errors.clone();
    if !operation.public {
        // Authentication, the rate limit, and failures of the server or its database.
        statuses.extend([401, 429, 500, 503]);
        // Parameters and bodies are bounded (`check_bounds`).
        let parameters = !operation.query.is_empty() || operation.path.contains('{');
        if parameters || write {
            statuses.push(422);
        }
    }
    if write {
        // A malformed Idempotency-Key or body, a key whose first request still runs, and a body that
        // is too large or not JSON (checked on every write, whether the route reads a body or not).
        statuses.extend([400, 409, 413, 415]);
    }
    if operation.request.is_some() {
        statuses.extend([400, 413, 415, 422]);
    }
    if !operation.query.is_empty() && !operation.public {
        // Text the database cannot store (a NUL) is a 400; the HTTP layer refuses a request line over
        // its limit (414) before any route runs.
        statuses.extend([400, 414]);
    }
    statuses.sort_unstable();
    statuses.dedup();
    statuses
}

fn success_headers(operation: &Operation, write: bool) -> Map<String, Value> {
    let mut headers = Map::new();
    if operation.public {
        return headers;
    }
    let rate_limit = [
        ("X-RateLimit-Limit", "Requests per second this route class allows the environment."),
        ("X-RateLimit-Remaining", "Requests left in the current second's burst."),
        ("X-RateLimit-Reset", "Seconds until the burst is whole again."),
    ];
    for (name, text) in rate_limit {
        headers.insert(name.into(), json!({"description": text, "schema": {"type": "integer", "minimum": 0}}));
    }
    if write {
        headers.insert(
            "Idempotency-Replay".into(),
            json!({
                "description": "`true` when this is the stored answer of an earlier request with the same Idempotency-Key.",
                "schema": {"type": "string", "enum": ["true"]},
            }),
        );
    }
    headers
}

fn description(status: u16) -> String {
    http::StatusCode::from_u16(status).ok().and_then(|status| status.canonical_reason()).unwrap_or("Answer").to_string()
}

/// The contract's error body (`src/error/render.rs`).
fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "Every error: the status, when, where, what. 422s list each failing field in `errors`; \
            a payload that fails the workflow's schema is a 400 of `type` PAYLOAD_VALIDATION_ERROR listing \
            each failure; 5xx carry an `errorId` that is also in the server's log.",
        "required": ["statusCode", "timestamp", "path", "message", "error"],
        "additionalProperties": false,
        "properties": {
            "statusCode": {"type": "integer"},
            "timestamp": {"type": "string", "format": "date-time"},
            "path": {"type": "string"},
            "message": {"type": "string"},
            "error": {"type": "string", "description": "The status's reason phrase (`Not Found`)."},
            "type": {"type": "string", "enum": ["PAYLOAD_VALIDATION_ERROR"]},
            "errors": {"oneOf": [
                {
                    "type": "object",
                    "description": "Field path → what is wrong with it and the value sent (cut to 64 characters).",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["messages", "value"],
                        "additionalProperties": false,
                        "properties": {"messages": {"type": "array", "items": {"type": "string"}}, "value": {}},
                    },
                },
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["field", "message", "value"],
                        "additionalProperties": false,
                        "properties": {"field": {"type": "string"}, "message": {"type": "string"}, "value": {}},
                    },
                },
            ]},
            "errorId": {"type": "string"},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_read_from_the_template() {
        assert_eq!(path_parameters("/v1/topics/{topicKey}/subscribers/{subscriberId}"), ["topicKey", "subscriberId"]);
        assert!(path_parameters("/v1/messages").is_empty());
    }
}
