//! Completes a page of notification rows with their subscribers, workflows, jobs, execution details
//! and topics: batched lookups (`= ANY`), whatever the size of the page. Each notification's trigger
//! job is rendered from the notification (see [`super::trigger_job`]), and a delivered in-app
//! message's details from its job (see [`super::in_app_details`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::in_app_details::rendered_details;
use super::trigger_job::trigger_job;
use super::{ActivityJob, ActivityJobRow, Event, EventTopic, ExecutionDetailRow, NotificationRow};
use crate::db::schema::{execution_details, jobs, notifications, step_snapshots, topic_fanouts, topics};
use crate::domain::subscribers::subscribers_by_ids;
use crate::domain::tenancy::Tenant;
use crate::domain::workflows::workflows_by_ids;
use crate::error::AppResult;

/// The events of `rows`, in the order of `rows`.
pub(super) async fn assemble(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    rows: Vec<NotificationRow>,
) -> AppResult<Vec<Event>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let environment_id = tenant.environment_id;
    let distinct = |ids: Vec<Uuid>| ids.into_iter().collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>();
    let subscriber_ids = distinct(rows.iter().map(|row| row.subscriber_id).collect());
    let workflow_ids = distinct(rows.iter().map(|row| row.workflow_id).collect());
    let notification_ids: Vec<Uuid> = rows.iter().map(|row| row.id).collect();

    let subscribers = subscribers_by_ids(conn, environment_id, &subscriber_ids).await?;
    let workflows: HashMap<Uuid, Arc<_>> = workflows_by_ids(conn, environment_id, &workflow_ids)
        .await?
        .into_iter()
        .map(|(id, workflow)| (id, Arc::new(workflow)))
        .collect();
    let job_rows: Vec<ActivityJobRow> = jobs::table
        .inner_join(step_snapshots::table.on(step_snapshots::id.eq(jobs::step_snapshot_id)))
        .inner_join(notifications::table.on(notifications::id.eq(jobs::notification_id)))
        .filter(jobs::environment_id.eq(environment_id))
        .filter(jobs::notification_id.eq_any(&notification_ids))
        .order((jobs::notification_id, jobs::position))
        .select(ActivityJobRow::as_select())
        .load(conn)
        .await?;
    let job_ids: Vec<Uuid> = job_rows.iter().map(|job| job.id).collect();
    let detail_rows: Vec<ExecutionDetailRow> = if job_ids.is_empty() {
        Vec::new()
    } else {
        execution_details::table
            .filter(execution_details::environment_id.eq(environment_id))
            .filter(execution_details::job_id.eq_any(&job_ids))
            .order((execution_details::job_id, execution_details::created_at, execution_details::id))
            .select(ExecutionDetailRow::as_select())
            .load(conn)
            .await?
    };

    let topics_by_transaction = topics_by_transaction(conn, environment_id, &rows).await?;

    let mut details_by_job: HashMap<Uuid, Vec<ExecutionDetailRow>> = HashMap::new();
    for detail in detail_rows {
        details_by_job.entry(detail.job_id).or_default().push(detail);
    }
    let mut jobs_by_event: HashMap<Uuid, Vec<ActivityJob>> = HashMap::new();
    for row in job_rows {
        let details = details_by_job.remove(&row.id).unwrap_or_else(|| rendered_details(&row));
        jobs_by_event.entry(row.notification_id).or_default().push(ActivityJob { row, details });
    }

    Ok(rows
        .into_iter()
        .map(|notification| {
            let subscriber = subscribers.get(&notification.subscriber_id).cloned();
            let workflow = workflows.get(&notification.workflow_id).cloned();
            let mut jobs = jobs_by_event.remove(&notification.id).unwrap_or_default();
            // Stored only by builds before the trigger job was rendered.
            let trigger_job_stored = jobs.as_slice().first().is_some_and(|job| job.row.position == 0);
            if !trigger_job_stored {
                let workflow_identifier = workflow.as_ref().map(|workflow| workflow.workflow.identifier.as_str());
                let subscriber_key = subscriber.as_ref().map(|subscriber| subscriber.subscriber_id.as_str());
                jobs.insert(0, trigger_job(&notification, workflow_identifier, subscriber_key));
            }
            let topics = topics_by_transaction.get(&notification.transaction_id).cloned().unwrap_or_default();
            Event { subscriber, workflow, jobs, topics, notification }
        })
        .collect())
}

/// The topics each trigger of `rows` was sent to, by transactionId: the keys its fan-out recorded, with
/// the ids of those topics that still exist.
async fn topics_by_transaction(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    rows: &[NotificationRow],
) -> AppResult<HashMap<String, Vec<EventTopic>>> {
    let transaction_ids: BTreeSet<&str> = rows.iter().map(|row| row.transaction_id.as_str()).collect();
    let fanouts: Vec<(String, Vec<String>)> = topic_fanouts::table
        .filter(topic_fanouts::environment_id.eq(environment_id))
        .filter(topic_fanouts::transaction_id.eq_any(transaction_ids))
        .select((topic_fanouts::transaction_id, topic_fanouts::topic_keys))
        .load(conn)
        .await?;
    if fanouts.is_empty() {
        return Ok(HashMap::new());
    }
    let keys: BTreeSet<&String> = fanouts.iter().flat_map(|(_, keys)| keys).collect();
    let ids: HashMap<String, Uuid> = topics::table
        .filter(topics::environment_id.eq(environment_id))
        .filter(topics::key.eq_any(keys))
        .select((topics::key, topics::id))
        .load::<(String, Uuid)>(conn)
        .await?
        .into_iter()
        .collect();
    let mut by_transaction: HashMap<String, Vec<EventTopic>> = HashMap::new();
    for (transaction_id, keys) in fanouts {
        let topics = keys.into_iter().map(|key| EventTopic { id: ids.get(&key).copied(), key });
        by_transaction.entry(transaction_id).or_default().extend(topics);
    }
    Ok(by_transaction)
}
