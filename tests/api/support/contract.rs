//! The OpenAPI document proven on every REST answer the tests receive: the HTTP client of the test
//! support ([`ApiClient`]) sends through [`ApiRequest::send`], which checks each answer of a Herald
//! API port against the document's schema for its route and status before the test sees it. An
//! undocumented route, method or status, or a body the schema refuses, fails the test.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// Herald API ports the tests talk to; answers from anything else (fakes, the metrics port) are not
/// part of the REST surface.
fn api_ports() -> &'static Mutex<HashSet<SocketAddr>> {
    static PORTS: OnceLock<Mutex<HashSet<SocketAddr>>> = OnceLock::new();
    PORTS.get_or_init(Default::default)
}

/// Marks `addr` as a Herald API port whose answers are checked.
pub fn register_api_port(addr: SocketAddr) {
    api_ports().lock().expect("ports").insert(addr);
}

/// Unmarks `addr`: its server stopped, or it was just bound by something else (the system hands a
/// freed port out again, and a metrics port or a fake must not be checked as an API).
pub fn forget_port(addr: SocketAddr) {
    api_ports().lock().expect("ports").remove(&addr);
}

/// Test-only routes mounted beside Herald's to provoke failures: their errors are still checked.
const TEST_ROUTES: &str = "/test/";

/// The document and its compiled response schemas.
pub struct Contract {
    document: Value,
    /// Compiled per (method, document path, status).
    validators: Mutex<HashMap<(String, String, u16), Arc<jsonschema::Validator>>>,
}

impl Contract {
    pub fn get() -> &'static Contract {
        static CONTRACT: OnceLock<Contract> = OnceLock::new();
        CONTRACT.get_or_init(|| Contract { document: herald::server::api_document(), validators: Mutex::default() })
    }

    pub fn document(&self) -> &Value {
        &self.document
    }

    /// The document path matching `path` (literal segments before parameters), if any.
    pub fn route_of(&self, path: &str) -> Option<String> {
        let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        let paths = self.document["paths"].as_object().expect("paths");
        paths
            .keys()
            .filter_map(|template| {
                let parts: Vec<&str> = template.split('/').collect();
                if parts.len() != segments.len() {
                    return None;
                }
                let mut literal = 0;
                for (part, segment) in parts.iter().zip(&segments) {
                    if part.starts_with('{') {
                        if segment.is_empty() {
                            return None;
                        }
                    } else if part == segment {
                        literal += 1;
                    } else {
                        return None;
                    }
                }
                Some((literal, template))
            })
            .max_by_key(|(literal, _)| *literal)
            .map(|(_, template)| template.clone())
    }

    /// Panics unless the answer `status`/`body` to `method path` is what the document says.
    pub fn check(&self, method: &Method, path: &str, status: StatusCode, content_type: Option<&str>, body: &[u8]) {
        let status = status.as_u16();
        let context = format!("{method} {path} answered {status}");
        if path.starts_with(TEST_ROUTES) {
            if status >= 400 {
                self.validate(&context, "Error", body, content_type);
            }
            return;
        }
        let Some(route) = self.route_of(path) else {
            // Unknown routes meet the router's fallback: the contract's 404.
            assert_eq!(status, 404, "{context}: a route the OpenAPI document does not describe");
            self.validate(&context, "Error", body, content_type);
            return;
        };
        let method_name = method.as_str().to_ascii_lowercase();
        let Some(operation) = self.document["paths"][&route].get(&method_name) else {
            assert_eq!(status, 405, "{context}: the OpenAPI document has no {method} on {route}");
            // The open health routes answer a wrong method with a bare 405; REST routes with the error body.
            let open = self.document["paths"][&route]
                .as_object()
                .is_some_and(|item| item.values().all(|operation| operation["security"] == json!([])));
            if !(open && body.is_empty()) {
                self.validate(&context, "Error", body, content_type);
            }
            return;
        };
        let Some(response) = operation["responses"].get(status.to_string()) else {
            panic!("{context}: status {status} is not in the OpenAPI document for {method} {route}");
        };
        let Some(content) = response.get("content").and_then(Value::as_object) else {
            assert!(
                body.is_empty(),
                "{context}: the document describes no body, got {}",
                String::from_utf8_lossy(body)
            );
            return;
        };
        if method == Method::HEAD {
            return;
        }
        let media = content_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_string();
        let Some(described) = content.get(&media) else {
            panic!(
                "{context}: content type {media:?} is not in the document ({:?})",
                content.keys().collect::<Vec<_>>()
            );
        };
        if media != "application/json" {
            return;
        }
        let validator = self.validator((method_name, route, status), &described["schema"]);
        check_json(&context, &validator, body);
    }

    /// Validates `body` against the component `component`.
    fn validate(&self, context: &str, component: &str, body: &[u8], content_type: Option<&str>) {
        assert!(
            content_type.is_some_and(|value| value.starts_with("application/json")),
            "{context}: an error answer is not JSON ({content_type:?})"
        );
        let schema = json!({"$ref": format!("#/components/schemas/{component}")});
        let validator = self.validator((String::new(), component.to_string(), 0), &schema);
        check_json(context, &validator, body);
    }

    /// The validator of `schema`, compiled once per `key`.
    fn validator(&self, key: (String, String, u16), schema: &Value) -> Arc<jsonschema::Validator> {
        if let Some(validator) = self.validators.lock().expect("validators").get(&key) {
            return validator.clone();
        }
        let compiled = Arc::new(self.compile(schema));
        self.validators.lock().expect("validators").insert(key, compiled.clone());
        compiled
    }

    /// A validator of `schema`, whose `#/components/...` references resolve in the document.
    fn compile(&self, schema: &Value) -> jsonschema::Validator {
        let mut root = schema.clone();
        if let Value::Object(object) = &mut root {
            object.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
            object.insert("components".into(), self.document["components"].clone());
        }
        jsonschema::validator_for(&root).unwrap_or_else(|error| panic!("the document's schema compiles: {error}"))
    }
}

fn check_json(context: &str, validator: &jsonschema::Validator, body: &[u8]) {
    let value: Value = serde_json::from_slice(body)
        .unwrap_or_else(|error| panic!("{context}: not JSON ({error}): {}", String::from_utf8_lossy(body)));
    let errors: Vec<String> =
        validator.iter_errors(&value).map(|error| format!("{} at {}", error, error.instance_path())).collect();
    assert!(errors.is_empty(), "{context}: the answer breaks the OpenAPI document:\n{}\n{value:#}", errors.join("\n"));
}

/// The tests' HTTP client: reqwest, with every answer of a Herald API port checked.
#[derive(Clone)]
pub struct ApiClient(reqwest::Client);

impl ApiClient {
    pub fn new() -> Self {
        Self(reqwest::Client::builder().build().expect("client"))
    }

    pub fn request(&self, method: Method, url: impl reqwest::IntoUrl) -> ApiRequest {
        ApiRequest(self.0.request(method, url))
    }

    pub fn get(&self, url: impl reqwest::IntoUrl) -> ApiRequest {
        self.request(Method::GET, url)
    }

    pub fn post(&self, url: impl reqwest::IntoUrl) -> ApiRequest {
        self.request(Method::POST, url)
    }

    pub fn delete(&self, url: impl reqwest::IntoUrl) -> ApiRequest {
        self.request(Method::DELETE, url)
    }
}

/// A request being built; [`send`](Self::send) checks its answer.
pub struct ApiRequest(reqwest::RequestBuilder);

impl ApiRequest {
    pub fn header<K, V>(self, key: K, value: V) -> Self
    where
        reqwest::header::HeaderName: TryFrom<K>,
        <reqwest::header::HeaderName as TryFrom<K>>::Error: Into<http::Error>,
        reqwest::header::HeaderValue: TryFrom<V>,
        <reqwest::header::HeaderValue as TryFrom<V>>::Error: Into<http::Error>,
    {
        Self(self.0.header(key, value))
    }

    pub fn headers(self, headers: reqwest::header::HeaderMap) -> Self {
        Self(self.0.headers(headers))
    }

    pub fn json<T: serde::Serialize + ?Sized>(self, body: &T) -> Self {
        Self(self.0.json(body))
    }

    pub fn body(self, body: impl Into<reqwest::Body>) -> Self {
        Self(self.0.body(body))
    }

    /// Sends the request; the answer of a Herald API port must be what the OpenAPI document says.
    pub async fn send(self) -> reqwest::Result<reqwest::Response> {
        let (client, request) = self.0.build_split();
        let request = request?;
        let method = request.method().clone();
        let url = request.url().clone();
        // gRPC calls share the port; the document describes REST.
        let grpc = request
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"application/grpc"));
        let response = client.execute(request).await?;
        let checked = url
            .socket_addrs(|| None)
            .ok()
            .and_then(|addrs| addrs.into_iter().next())
            .is_some_and(|addr| api_ports().lock().expect("ports").contains(&addr));
        if !checked || grpc {
            return Ok(response);
        }
        let status = response.status();
        let version = response.version();
        let headers = response.headers().clone();
        let body = response.bytes().await?;
        let content_type = headers.get(reqwest::header::CONTENT_TYPE).and_then(|value| value.to_str().ok());
        Contract::get().check(&method, url.path(), status, content_type, &body);
        let mut rebuilt = http::Response::new(body);
        *rebuilt.status_mut() = status;
        *rebuilt.version_mut() = version;
        *rebuilt.headers_mut() = headers;
        Ok(reqwest::Response::from(rebuilt))
    }
}
