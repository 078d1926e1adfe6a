//! The OpenAPI 3.1 document of the REST surface, served at `GET /openapi.json` with a page for people
//! at `GET /docs` (both open, like the health routes), and committed as `docs/openapi.json`.
//!
//! Why it stays true: routes are registered only through [`ApiRoutes::add`], which takes the route's
//! [`Operation`] with its handler, so the router and the document's paths come from one list; the
//! message schemas are generated from the descriptor set pbjson's serde code is generated from
//! ([`schemas`]); and the few places the REST layer writes a message otherwise (nullable fields,
//! shorthands) are declared beside the handlers as [`Reshape`]s. The test suite validates every REST
//! answer it receives against this document, and schemathesis fuzzes a live server against it.

mod document;
mod operation;
pub mod schemas;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Response};
use serde_json::Value;

pub use operation::{ApiRoutes, Operation, Reshape};

/// What every declared route contributes to the document.
#[derive(Debug, Default)]
pub struct Declarations {
    pub operations: Vec<Operation>,
    pub reshapes: Vec<(&'static str, Reshape)>,
}

impl Declarations {
    pub fn add<S: Clone + Send + Sync + 'static>(&mut self, routes: &ApiRoutes<S>) {
        self.operations.extend(routes.operations.iter().cloned());
        self.reshapes.extend(routes.reshapes.iter().cloned());
    }

    /// The OpenAPI document of these declarations.
    pub fn document(&self) -> Value {
        document::build(&self.operations, &self.reshapes)
    }
}

/// The encoded document the routes serve.
#[derive(Debug, Clone)]
pub struct Document(Bytes);

impl Document {
    pub fn new(document: &Value) -> Self {
        Self(Bytes::from(serde_json::to_vec_pretty(document).expect("a JSON value encodes")))
    }
}

/// `GET /openapi.json` and `GET /docs`, declared like every other route.
pub fn routes() -> ApiRoutes<Document> {
    let document = Operation::get("/openapi.json", "getOpenApiDocument", "Documentation")
        .summary("This document")
        .answers(200, serde_json::json!({"type": "object"}))
        .public();
    let page = Operation::get("/docs", "getApiDocumentation", "Documentation")
        .summary("A page rendering this document (works offline)")
        .answers_html(200)
        .public();
    ApiRoutes::new().add(document, get_openapi_document).add(page, get_api_documentation)
}

async fn get_openapi_document(State(document): State<Document>) -> Response {
    ([(http::header::CONTENT_TYPE, "application/json")], document.0).into_response()
}

/// The page is self-contained (its script is inline): nothing is fetched but `/openapi.json`.
async fn get_api_documentation() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
