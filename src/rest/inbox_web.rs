//! The `<herald-inbox>` web component (`web/inbox/herald-inbox.js`) and a page showing it
//! (`web/inbox/demo.html`), both embedded in the binary and open like `/docs`: the component is what a
//! product's pages load, the demo what a developer opens after `cargo run`. Neither carries a secret:
//! the component talks to the inbox routes with a session token it obtains itself.

use std::sync::OnceLock;

use axum::response::{Html, IntoResponse, Response};
use diesel_async::AsyncPgConnection;

use crate::db::DbPool;
use crate::domain::subscribers::{create_subscriber, find_subscriber, NewSubscriber};
use crate::domain::tenancy::{list_environments, Tenant};
use crate::error::AppResult;
use crate::openapi::{ApiRoutes, Operation};

const TAG: &str = "Inbox";
const COMPONENT: &str = include_str!("../../web/inbox/herald-inbox.js");
const DEMO_PAGE: &str = include_str!("../../web/inbox/demo.html");
/// Where the demo page's server-side default goes (an HTML attribute value).
const APPLICATION_PLACEHOLDER: &str = "{{applicationIdentifier}}";
/// The subscriber the demo page shows in the zero-configuration run.
pub const DEMO_SUBSCRIBER: &str = "inbox-demo";
/// The component changes with the binary, at a stable path: caches keep it a few minutes only.
const COMPONENT_CACHE: &str = "public, max-age=300";

/// The zero-configuration run's seeded environment, which the demo page shows by default. Set once
/// at start, and only on Herald's private development cluster: a server on `DATABASE_URL` names no
/// environment on an open page (the page then asks for one in its query).
static DEMO_APPLICATION: OnceLock<String> = OnceLock::new();

/// `GET /inbox/herald-inbox.js` and `GET /inbox/demo`, declared like every other route.
pub fn routes() -> ApiRoutes<()> {
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

async fn get_inbox_demo() -> Response {
    let application = DEMO_APPLICATION.get().map(String::as_str).unwrap_or("");
    let page = DEMO_PAGE.replace(APPLICATION_PLACEHOLDER, &escape_attribute(application));
    ([(http::header::CACHE_CONTROL, "no-store")], Html(page)).into_response()
}

fn escape_attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// For the zero-configuration run: makes the seeded (oldest) environment the demo page's default and
/// creates its demo subscriber when missing, so the page works on the first `cargo run`.
pub async fn prepare_demo(pool: &DbPool) -> AppResult<()> {
    let mut conn = pool.get().await?;
    let Some(seeded) = list_environments(&mut conn).await?.into_iter().next() else { return Ok(()) };
    let environment = seeded.environment;
    let tenant = Tenant { organization_id: environment.organization_id, environment_id: environment.id };
    ensure_demo_subscriber(&mut conn, tenant).await?;
    let _ = DEMO_APPLICATION.set(environment.application_identifier);
    Ok(())
}

async fn ensure_demo_subscriber(conn: &mut AsyncPgConnection, tenant: Tenant) -> AppResult<()> {
    if find_subscriber(conn, tenant, DEMO_SUBSCRIBER).await?.is_none() {
        let new = NewSubscriber {
            subscriber_id: DEMO_SUBSCRIBER.into(),
            first_name: Some("Demo".into()),
            ..Default::default()
        };
        create_subscriber(conn, tenant, new).await?;
    }
    Ok(())
}
