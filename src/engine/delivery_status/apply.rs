//! Recording a post's events: the messages they name are found in one query and changed by one
//! UPDATE, and their execution details written by one INSERT, all in one transaction. Events for
//! messages Herald does not know are skipped.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};
use uuid::Uuid;

use super::{Integration, Outcome, StatusEvent};
use crate::db::batch::update_from_records;
use crate::db::schema::messages;
use crate::engine::details::{insert_details, Detail, DetailSource, DetailStatus};
use crate::error::{AppError, AppResult};

/// A failure wins over the message's status; a delivery adds its time to `delivered_at` (once).
const UPDATE_MESSAGES: &str = "UPDATE messages AS m
     SET status = CASE WHEN u.failed THEN 'error' ELSE m.status END,
         error_id = CASE WHEN u.failed THEN u.error_id ELSE m.error_id END,
         error_text = CASE WHEN u.failed THEN u.error_text ELSE m.error_text END,
         delivered_at = m.delivered_at
             || ARRAY(SELECT DISTINCT t FROM unnest(u.delivered_at) AS t WHERE t <> ALL(m.delivered_at) ORDER BY t),
         updated_at = $2
     FROM jsonb_to_recordset($1)
          AS u(message_id uuid, failed boolean, error_id text, error_text text, delivered_at timestamptz[])
     WHERE m.id = u.message_id";

/// A message an event may name, with what its execution details need.
#[derive(Debug, Clone, Queryable)]
struct Target {
    id: Uuid,
    job_id: Uuid,
    notification_id: Uuid,
    subscriber_id: Uuid,
    provider_message_id: Option<String>,
}

/// What the events of a post do to one message.
#[derive(Debug, Default)]
struct Change {
    delivered_at: Vec<DateTime<Utc>>,
    /// The last failure: `(error_id, error_text)`.
    failure: Option<(&'static str, String)>,
}

/// Records `events` on the messages of the integration's environment and provider that they name;
/// returns how many events named one.
pub(super) async fn record_events(
    conn: &mut AsyncPgConnection,
    integration: &Integration,
    events: &[StatusEvent],
    now: DateTime<Utc>,
) -> AppResult<usize> {
    if events.is_empty() {
        return Ok(0);
    }
    conn.transaction::<_, AppError, _>(async |conn| {
        let targets = load_targets(conn, integration, events).await?;
        let mut changes: HashMap<Uuid, Change> = HashMap::new();
        let mut details = Vec::new();
        for event in events {
            let Some(target) = find_target(&targets, event) else { continue };
            let change = changes.entry(target.id).or_default();
            match event.outcome {
                Outcome::Delivered => change.delivered_at.push(event.occurred_at.unwrap_or(now)),
                Outcome::Failed { error_id } => {
                    let text = event.reason.clone().unwrap_or_else(|| failure_label(error_id).to_string());
                    change.failure = Some((error_id, text));
                }
                Outcome::Pending => {}
            }
            details.push(detail(integration, target, event));
        }
        let updates: Vec<Value> = changes
            .iter()
            .filter(|(_, change)| change.failure.is_some() || !change.delivered_at.is_empty())
            .map(|(message_id, change)| {
                json!({
                    "message_id": message_id, "failed": change.failure.is_some(),
                    "error_id": change.failure.as_ref().map(|(id, _)| id),
                    "error_text": change.failure.as_ref().map(|(_, text)| text),
                    "delivered_at": change.delivered_at,
                })
            })
            .collect();
        update_from_records(conn, UPDATE_MESSAGES, updates, now).await?;
        insert_details(conn, &details, now).await?;
        Ok(details.len())
    })
    .await
}

/// Every message the events may name, locked until the transaction ends.
async fn load_targets(
    conn: &mut AsyncPgConnection,
    integration: &Integration,
    events: &[StatusEvent],
) -> AppResult<Vec<Target>> {
    let herald_ids: Vec<Uuid> = events.iter().filter_map(|event| event.herald_message_id).collect();
    let provider_ids: Vec<&str> =
        events.iter().flat_map(|event| event.provider_message_ids.iter().map(String::as_str)).collect();
    let targets = messages::table
        .filter(messages::environment_id.eq(integration.row.environment_id))
        .filter(messages::provider_id.eq(&integration.row.provider_id))
        .filter(messages::id.eq_any(herald_ids).or(messages::provider_message_id.eq_any(provider_ids)))
        .select((
            messages::id,
            messages::job_id,
            messages::notification_id,
            messages::subscriber_id,
            messages::provider_message_id,
        ))
        .for_update()
        .load(conn)
        .await?;
    Ok(targets)
}

/// The message `event` names: by Herald's id first, else by one spelling of the provider's id.
fn find_target<'a>(targets: &'a [Target], event: &StatusEvent) -> Option<&'a Target> {
    let by_herald_id = event.herald_message_id.and_then(|id| targets.iter().find(|target| target.id == id));
    by_herald_id.or_else(|| {
        targets.iter().find(|target| {
            target.provider_message_id.as_ref().is_some_and(|stored| event.provider_message_ids.contains(stored))
        })
    })
}

fn detail(integration: &Integration, target: &Target, event: &StatusEvent) -> Detail {
    let (status, label) = match event.outcome {
        Outcome::Delivered => (DetailStatus::Success, "Delivered"),
        Outcome::Failed { error_id: "complained" } => (DetailStatus::Warning, failure_label("complained")),
        Outcome::Failed { error_id } => (DetailStatus::Failed, failure_label(error_id)),
        Outcome::Pending => (DetailStatus::Pending, "Delivery pending"),
    };
    let mut text = format!("{label} (provider: {})", event.event);
    if let Some(reason) = &event.reason {
        text = format!("{text}: {reason}");
    }
    Detail {
        job_id: target.job_id,
        environment_id: integration.row.environment_id,
        notification_id: target.notification_id,
        subscriber_id: target.subscriber_id,
        status,
        source: DetailSource::Webhook,
        detail: text,
        is_retry: false,
        provider_id: Some(integration.row.provider_id.clone()),
        raw: Some(event.raw.clone()),
    }
}

fn failure_label(error_id: &str) -> &'static str {
    match error_id {
        "bounced" => "Bounced",
        "dropped" => "Dropped by the provider",
        "complained" => "Marked as spam by the recipient",
        _ => "Delivery failed",
    }
}
