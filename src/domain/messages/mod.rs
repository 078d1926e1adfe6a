//! Messages: what a channel step delivered (or tried to) to one subscriber. The engine writes them;
//! here they are listed, and in-app messages change their seen/read (and, from the inbox, archived)
//! state.
//!
//! Like the activity listing, reads are batched: a page is one query (plus its count), then one
//! query for its subscribers and one for its workflows with their steps.

mod list;
mod mark;

pub use list::{list_messages, MessagePage, MessageQuery, DEFAULT_LIMIT, MAX_LIMIT};
pub use mark::{mark_locked_in_id_order, mark_messages_as, MarkAs};

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::AsyncPgConnection;
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::messages;
use crate::domain::subscribers::{subscribers_by_ids, Subscriber};
use crate::domain::workflows::{workflows_by_ids, StoredWorkflow};
use crate::error::AppResult;

/// A stored message (every column the API shows).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = messages)]
pub struct StoredMessage {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub notification_id: Uuid,
    pub subscriber_id: Uuid,
    /// `_templateId`: the workflow.
    pub workflow_id: Option<Uuid>,
    /// `_messageTemplateId`: the workflow step.
    pub step_id: Option<Uuid>,
    pub template_identifier: Option<String>,
    pub channel: String,
    pub transaction_id: String,
    pub subject: Option<String>,
    /// A JSON string, or an array of EmailBlock.
    pub content: Option<Value>,
    pub title: Option<String>,
    /// The API's MessageCta JSON, `{}` without an action.
    pub cta: Value,
    pub payload: Value,
    pub overrides: Value,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub direct_webhook_url: Option<String>,
    pub device_tokens: Vec<String>,
    pub provider_id: Option<String>,
    pub feed_id: Option<Uuid>,
    /// `sent`, `error` or `warning`.
    pub status: String,
    pub error_id: Option<String>,
    pub error_text: Option<String>,
    pub read: bool,
    pub seen: bool,
    pub last_seen_date: Option<DateTime<Utc>>,
    pub last_read_date: Option<DateTime<Utc>>,
    pub delivered_at: Vec<DateTime<Utc>>,
    pub snoozed_until: Option<DateTime<Utc>>,
    pub context_keys: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the subscriber archived it in the inbox.
    pub archived_at: Option<DateTime<Utc>>,
    /// When the subscriber deleted it from the inbox (a soft delete: the server API still shows it).
    pub deleted_at: Option<DateTime<Utc>>,
}

/// A message with its subscriber and workflow (both shared by the messages of a page).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub row: StoredMessage,
    pub subscriber: Option<Arc<Subscriber>>,
    pub workflow: Option<Arc<StoredWorkflow>>,
}

/// The messages of `rows` with their subscribers and workflows, in the order of `rows`.
pub(crate) async fn with_relations(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    rows: Vec<StoredMessage>,
) -> AppResult<Vec<Message>> {
    let subscriber_ids: Vec<Uuid> =
        rows.iter().map(|row| row.subscriber_id).collect::<BTreeSet<_>>().into_iter().collect();
    let workflow_ids: Vec<Uuid> =
        rows.iter().filter_map(|row| row.workflow_id).collect::<BTreeSet<_>>().into_iter().collect();
    let subscribers: HashMap<Uuid, Arc<Subscriber>> = subscribers_by_ids(conn, environment_id, &subscriber_ids)
        .await?
        .into_iter()
        .map(|(id, subscriber)| (id, Arc::new(subscriber)))
        .collect();
    let workflows: HashMap<Uuid, Arc<StoredWorkflow>> = workflows_by_ids(conn, environment_id, &workflow_ids)
        .await?
        .into_iter()
        .map(|(id, workflow)| (id, Arc::new(workflow)))
        .collect();
    Ok(rows
        .into_iter()
        .map(|row| Message {
            subscriber: subscribers.get(&row.subscriber_id).cloned(),
            workflow: row.workflow_id.and_then(|id| workflows.get(&id).cloned()),
            row,
        })
        .collect())
}
