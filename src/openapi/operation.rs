//! How a REST route is declared: an [`Operation`] (method, path, parameters, bodies, answers) and the
//! handler that serves it, registered together through [`ApiRoutes`]. The router and the document are
//! built from the same declarations, so a route cannot be served undocumented nor documented unserved.

use axum::handler::Handler;
use axum::routing::{on, MethodFilter};
use axum::Router;
use http::Method;
use serde_json::{json, Value};

use super::schemas::{limited_text, nullable};

/// One REST operation as the document describes it.
#[derive(Debug, Clone)]
pub struct Operation {
    pub method: Method,
    /// The axum path (`/v2/subscribers/{subscriber_id}`); the document spells its parameters in
    /// camelCase, as the specification does.
    pub path: &'static str,
    pub id: &'static str,
    pub summary: &'static str,
    pub tag: &'static str,
    pub query: Vec<Value>,
    /// Schemas of path parameters (camelCase) other than the text bound of their name.
    pub path_schemas: Vec<(&'static str, Value)>,
    pub request: Option<Value>,
    /// Success answers: status, and the body's media type and schema (`None`: no body).
    pub answers: Vec<(u16, Option<(&'static str, Value)>)>,
    /// Error statuses this route can answer beyond those every route can (see `document`).
    pub errors: Vec<u16>,
    /// Needs no API key (health, the document itself, providers' signed webhooks).
    pub public: bool,
    /// Authenticated by an inbox session token (`Authorization: Bearer …`) instead of an API key.
    pub subscriber_token: bool,
}

impl Operation {
    pub fn new(method: Method, path: &'static str, id: &'static str, tag: &'static str) -> Self {
        Self {
            method,
            path,
            id,
            summary: "",
            tag,
            query: Vec::new(),
            path_schemas: Vec::new(),
            request: None,
            answers: Vec::new(),
            errors: Vec::new(),
            public: false,
            subscriber_token: false,
        }
    }

    pub fn get(path: &'static str, id: &'static str, tag: &'static str) -> Self {
        Self::new(Method::GET, path, id, tag)
    }

    pub fn post(path: &'static str, id: &'static str, tag: &'static str) -> Self {
        Self::new(Method::POST, path, id, tag)
    }

    pub fn put(path: &'static str, id: &'static str, tag: &'static str) -> Self {
        Self::new(Method::PUT, path, id, tag)
    }

    pub fn patch(path: &'static str, id: &'static str, tag: &'static str) -> Self {
        Self::new(Method::PATCH, path, id, tag)
    }

    pub fn delete(path: &'static str, id: &'static str, tag: &'static str) -> Self {
        Self::new(Method::DELETE, path, id, tag)
    }

    pub fn summary(mut self, summary: &'static str) -> Self {
        self.summary = summary;
        self
    }

    /// A query parameter with its schema.
    pub fn query(mut self, name: &'static str, schema: Value) -> Self {
        self.query.push(json!({"name": name, "in": "query", "required": false, "schema": schema}));
        self
    }

    /// A text query parameter, bounded as `check_bounds` bounds the request field of that name.
    pub fn query_text(self, name: &'static str) -> Self {
        self.query(name, limited_text(name))
    }

    /// An array query parameter (repeated keys) of `items`.
    pub fn query_list(self, name: &'static str, items: Value) -> Self {
        let schema = json!({"type": "array", "items": items, "maxItems": crate::domain::limits::MAX_ITEMS});
        let mut operation = self.query(name, schema);
        let parameter = operation.query.last_mut().expect("just pushed");
        parameter["style"] = json!("form");
        parameter["explode"] = json!(true);
        operation
    }

    /// The JSON request body's schema.
    pub fn body(mut self, schema: Value) -> Self {
        self.request = Some(schema);
        self
    }

    /// A success answer with a JSON body.
    pub fn answers(mut self, status: u16, schema: Value) -> Self {
        self.answers.push((status, Some(("application/json", schema))));
        self
    }

    /// A success answer with an HTML page.
    pub fn answers_html(mut self, status: u16) -> Self {
        self.answers.push((status, Some(("text/html", json!({"type": "string"})))));
        self
    }

    /// A success answer with a text body of this media type (a script, a stylesheet).
    pub fn answers_text(mut self, status: u16, media: &'static str) -> Self {
        self.answers.push((status, Some((media, json!({"type": "string"})))));
        self
    }

    /// A success answer streaming Server-Sent Events.
    pub fn answers_event_stream(mut self, status: u16) -> Self {
        self.answers.push((status, Some(("text/event-stream", json!({"type": "string"})))));
        self
    }

    /// A success answer without a body (204).
    pub fn answers_empty(mut self, status: u16) -> Self {
        self.answers.push((status, None));
        self
    }

    /// Error statuses particular to this route (404, 409, …).
    pub fn errors(mut self, statuses: &[u16]) -> Self {
        self.errors.extend_from_slice(statuses);
        self
    }

    pub fn public(mut self) -> Self {
        self.public = true;
        self
    }

    /// Authenticated by an inbox session token rather than an API key.
    pub fn subscriber_token(mut self) -> Self {
        self.subscriber_token = true;
        self
    }

    /// The path as the document writes it: `{subscriber_id}` → `{subscriberId}`.
    pub fn document_path(&self) -> String {
        let mut path = String::with_capacity(self.path.len());
        let mut in_parameter = false;
        let mut upper_next = false;
        for character in self.path.chars() {
            match character {
                '{' => in_parameter = true,
                '}' => in_parameter = false,
                '_' if in_parameter => {
                    upper_next = true;
                    continue;
                }
                _ => {}
            }
            if upper_next {
                path.extend(character.to_uppercase());
                upper_next = false;
            } else {
                path.push(character);
            }
        }
        path
    }
}

/// How the REST layer writes a message otherwise than pbjson does, applied to its component.
#[derive(Debug, Clone)]
pub enum Reshape {
    /// These fields are always written, as `null` when unset.
    Nullable(&'static [&'static str]),
    /// These fields may be left out.
    Optional(&'static [&'static str]),
    /// A request must carry these fields (the domain refuses it without them).
    Required(&'static [&'static str]),
    /// This field has this schema (a shorthand the REST layer reads).
    Property(&'static str, Value),
}

impl Reshape {
    pub fn apply(&self, schema: &mut Value) {
        match self {
            Reshape::Nullable(fields) => {
                for field in *fields {
                    let property = &mut schema["properties"][*field];
                    *property = nullable(property.take());
                }
                Reshape::Required(fields).apply(schema);
            }
            Reshape::Optional(fields) => {
                if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
                    required.retain(|name| !fields.iter().any(|field| name == field));
                }
            }
            Reshape::Required(fields) => {
                let required = schema.as_object_mut().expect("an object schema").entry("required").or_insert(json!([]));
                let required = required.as_array_mut().expect("a list");
                for field in *fields {
                    if !required.contains(&json!(field)) {
                        required.push(json!(field));
                    }
                }
            }
            Reshape::Property(field, property) => schema["properties"][*field] = property.clone(),
        }
    }
}

/// A router whose routes are registered with their [`Operation`]s, and the REST shapes of the
/// messages they write.
pub struct ApiRoutes<S> {
    pub router: Router<S>,
    pub operations: Vec<Operation>,
    pub reshapes: Vec<(&'static str, Reshape)>,
}

impl<S: Clone + Send + Sync + 'static> Default for ApiRoutes<S> {
    fn default() -> Self {
        Self { router: Router::new(), operations: Vec::new(), reshapes: Vec::new() }
    }
}

impl<S: Clone + Send + Sync + 'static> ApiRoutes<S> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `operation` with `handler`.
    pub fn add<H, T>(mut self, operation: Operation, handler: H) -> Self
    where
        H: Handler<T, S>,
        T: 'static,
    {
        let filter = MethodFilter::try_from(operation.method.clone()).expect("a routable method");
        self.router = self.router.route(operation.path, on(filter, handler));
        self.operations.push(operation);
        self
    }

    /// Declares that the REST layer writes (or reads) the component `component` reshaped.
    pub fn reshape(mut self, component: &'static str, reshape: Reshape) -> Self {
        self.reshapes.push((component, reshape));
        self
    }

    pub fn merge(mut self, other: ApiRoutes<S>) -> Self {
        self.router = self.router.merge(other.router);
        self.operations.extend(other.operations);
        self.reshapes.extend(other.reshapes);
        self
    }

    /// The router with its state (declarations are read before, see `crate::openapi::Declarations`).
    pub fn with_state<S2>(self, state: S) -> Router<S2> {
        self.router.with_state(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_written_in_camel_case() {
        let operation = Operation::get("/v1/topics/{topic_key}/subscribers/{subscriber_id}", "x", "t");
        assert_eq!(operation.document_path(), "/v1/topics/{topicKey}/subscribers/{subscriberId}");
        assert_eq!(Operation::get("/v1/messages", "x", "t").document_path(), "/v1/messages");
    }
}
