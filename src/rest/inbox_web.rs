//! The `<herald-inbox>` web component (`web/inbox/herald-inbox.js`) and a page showing it
//! (`web/inbox/demo.html`), both embedded in the binary and open like `/docs`: the component is what a
//! product's pages load, the demo what a developer opens after `cargo run`. Neither carries a secret:
//! the component talks to the inbox routes with a session token it obtains itself.

use axum::extract::State;
use axum::response::{Html, IntoResponse, Response};

use crate::app::AppState;
use crate::openapi::{ApiRoutes, Operation};

const TAG: &str = "Inbox";
const COMPONENT: &str = include_str!("../../web/inbox/herald-inbox.js");
const DEMO_PAGE: &str = include_str!("../../web/inbox/demo.html");
/// Where the demo page's server-side default goes (an HTML attribute value).
const APPLICATION_PLACEHOLDER: &str = "{{applicationIdentifier}}";
/// The component changes with the binary, at a stable path: caches keep it a few minutes only.
const COMPONENT_CACHE: &str = "public, max-age=300";

/// `GET /inbox/herald-inbox.js` and `GET /inbox/demo`, declared like every other route.
pub fn routes() -> ApiRoutes<AppState> {
    let component = Operation::get("/inbox/herald-inbox.js", "getInboxComponent", TAG)
        .summary("The <herald-inbox> web component (a plain script, no dependencies)")
        .answers_text(200, "text/javascript")
        .public();
    let demo = Operation::get("/inbox/demo", "getInboxDemo", TAG)
        .summary("A page showing <herald-inbox> (the development environment's demo subscriber by default)")
        .answers_html(200)
        .public();
    ApiRoutes::new().add(component, get_inbox_component).add(demo, get_inbox_demo)
}

async fn get_inbox_component() -> Response {
    let headers = [
        (http::header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
        (http::header::CACHE_CONTROL, COMPONENT_CACHE),
    ];
    (headers, COMPONENT).into_response()
}

/// The page names the zero-configuration run's seeded environment by default; a server on
/// `DATABASE_URL` names none on an open page (the page then asks for one in its query).
async fn get_inbox_demo(State(state): State<AppState>) -> Response {
    let application = state.inbox_demo_application.as_deref().unwrap_or("");
    let page = DEMO_PAGE.replace(APPLICATION_PLACEHOLDER, &escape_attribute(application));
    ([(http::header::CACHE_CONTROL, "no-store")], Html(page)).into_response()
}

fn escape_attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}
