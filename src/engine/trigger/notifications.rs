//! The notification rows of a trigger's recipients, inserted in one `unnest` statement whatever their
//! number (see `db::unnest` for why).

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Bool, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::unnest::{bind_arrays, static_query_id};

/// A notification row as the trigger creates it.
#[derive(Debug, Clone)]
pub struct NewNotification {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub workflow_id: Uuid,
    pub subscriber_id: Uuid,
    pub transaction_id: String,
    pub payload: Value,
    pub overrides: Value,
    pub actor_subscriber_id: Option<Uuid>,
    pub tenant_id: Option<Uuid>,
    pub tags: Vec<String>,
    pub to_recipient: Value,
    pub channels: Vec<String>,
    pub severity: String,
    pub critical: bool,
    pub created_at: DateTime<Utc>,
}

/// Inserts `notifications` except those whose (environment, transactionId, subscriber) already has one (a
/// topic member reached twice, or a fan-out page expanded again after a crash); returns the (id,
/// subscriber) of those inserted.
pub async fn insert_notifications(
    conn: &mut AsyncPgConnection,
    notifications: &[NewNotification],
) -> QueryResult<Vec<(Uuid, Uuid)>> {
    if notifications.is_empty() {
        return Ok(Vec::new());
    }
    NotificationColumns::of(notifications).load(conn).await
}

/// The notifications to insert, column by column.
struct NotificationColumns<'a> {
    id: Vec<Uuid>,
    environment_id: Vec<Uuid>,
    organization_id: Vec<Uuid>,
    workflow_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    transaction_id: Vec<&'a str>,
    payload: Vec<&'a Value>,
    overrides: Vec<&'a Value>,
    actor_subscriber_id: Vec<Option<Uuid>>,
    tenant_id: Vec<Option<Uuid>>,
    // A PostgreSQL array has one dimension length for all its elements, so the text arrays of each row
    // travel as JSON and are turned back into text[] by the statement.
    tags: Vec<Value>,
    to_recipient: Vec<&'a Value>,
    channels: Vec<Value>,
    severity: Vec<&'a str>,
    critical: Vec<bool>,
    created_at: Vec<DateTime<Utc>>,
}

impl<'a> NotificationColumns<'a> {
    fn of(rows: &'a [NewNotification]) -> Self {
        Self {
            id: rows.iter().map(|row| row.id).collect(),
            environment_id: rows.iter().map(|row| row.environment_id).collect(),
            organization_id: rows.iter().map(|row| row.organization_id).collect(),
            workflow_id: rows.iter().map(|row| row.workflow_id).collect(),
            subscriber_id: rows.iter().map(|row| row.subscriber_id).collect(),
            transaction_id: rows.iter().map(|row| row.transaction_id.as_str()).collect(),
            payload: rows.iter().map(|row| &row.payload).collect(),
            overrides: rows.iter().map(|row| &row.overrides).collect(),
            actor_subscriber_id: rows.iter().map(|row| row.actor_subscriber_id).collect(),
            tenant_id: rows.iter().map(|row| row.tenant_id).collect(),
            tags: rows.iter().map(|row| Value::from(row.tags.clone())).collect(),
            to_recipient: rows.iter().map(|row| &row.to_recipient).collect(),
            channels: rows.iter().map(|row| Value::from(row.channels.clone())).collect(),
            severity: rows.iter().map(|row| row.severity.as_str()).collect(),
            critical: rows.iter().map(|row| row.critical).collect(),
            created_at: rows.iter().map(|row| row.created_at).collect(),
        }
    }
}

static_query_id!(NotificationColumns);

impl diesel::query_builder::Query for NotificationColumns<'_> {
    type SqlType = (SqlUuid, SqlUuid);
}

impl QueryFragment<Pg> for NotificationColumns<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO notifications (id, environment_id, organization_id, workflow_id, subscriber_id, \
             transaction_id, payload, overrides, actor_subscriber_id, tenant_id, tags, to_recipient, channels, \
             severity, critical, created_at, updated_at) \
             SELECT id, environment_id, organization_id, workflow_id, subscriber_id, transaction_id, payload, \
             overrides, actor_subscriber_id, tenant_id, ARRAY(SELECT jsonb_array_elements_text(tags)), to_recipient, \
             ARRAY(SELECT jsonb_array_elements_text(channels)), severity, critical, created_at, created_at \
             FROM unnest(",
        );
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.environment_id, SqlUuid: self.organization_id,
            SqlUuid: self.workflow_id, SqlUuid: self.subscriber_id, Text: self.transaction_id,
            Jsonb: self.payload, Jsonb: self.overrides, Nullable<SqlUuid>: self.actor_subscriber_id,
            Nullable<SqlUuid>: self.tenant_id, Jsonb: self.tags, Jsonb: self.to_recipient, Jsonb: self.channels,
            Text: self.severity, Bool: self.critical, Timestamptz: self.created_at,
        );
        out.push_sql(
            ") AS n(id, environment_id, organization_id, workflow_id, subscriber_id, transaction_id, payload, \
             overrides, actor_subscriber_id, tenant_id, tags, to_recipient, channels, severity, critical, created_at) \
             ON CONFLICT (environment_id, transaction_id, subscriber_id) DO NOTHING \
             RETURNING id, subscriber_id",
        );
        Ok(())
    }
}
