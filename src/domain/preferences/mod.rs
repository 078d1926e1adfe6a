//! Subscriber preferences: global channel flags and weekly schedule, and per-workflow channel flags,
//! resolved against each workflow's defaults.

mod resolution;
mod schedule;

pub use resolution::{
    resolve_channel, ChannelDecision, ChannelFlags, PreferenceSource, WorkflowDefaults, PREFERENCE_CHANNELS,
};
pub use schedule::{format_time_of_day, DaySchedule, Schedule, TimeRange, WeeklySchedule};

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::{subscriber_preferences, workflow_steps, workflows};
use crate::domain::subscribers::{get_subscriber, Subscriber};
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// Everything a subscriber's preferences say.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberPreferences {
    pub global: GlobalPreference,
    pub workflows: Vec<WorkflowPreference>,
}

/// Global preferences: every channel's effective flag, and the schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalPreference {
    pub enabled: bool,
    pub channels: ChannelFlags,
    pub schedule: Option<Schedule>,
}

/// Preferences for one (non-critical) workflow, over the channels its steps use.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowPreference {
    pub enabled: bool,
    pub channels: ChannelFlags,
    /// Who decided each channel, in [`PREFERENCE_CHANNELS`] order.
    pub overrides: Vec<(&'static str, PreferenceSource)>,
    pub workflow: WorkflowInfo,
}

/// Identification of a workflow in a preference.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowInfo {
    pub id: Uuid,
    pub identifier: String,
    pub name: String,
    pub updated_at: DateTime<Utc>,
    /// The workflow's tags (the inbox groups preferences by them).
    pub tags: Vec<String>,
}

impl WorkflowInfo {
    /// The workflow's slug.
    pub fn slug(&self) -> String {
        crate::domain::workflows::slug_of(&self.identifier, self.id)
    }
}

/// A change to a subscriber's preferences.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreferencesUpdate {
    /// Flags to set; absent flags stay as they are.
    pub channels: ChannelFlags,
    /// Workflow `_id`, identifier or slug: update that workflow's preferences instead of the global ones.
    pub workflow_id: Option<String>,
    /// Replaces the global schedule.
    pub schedule: Option<Schedule>,
}

/// A stored preference row.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = subscriber_preferences)]
struct StoredPreference {
    workflow_id: Option<Uuid>,
    enabled: bool,
    channels: Value,
    schedule: Option<Value>,
}

impl StoredPreference {
    fn flags(&self) -> ChannelFlags {
        serde_json::from_value(self.channels.clone()).unwrap_or_default()
    }
}

/// What a subscriber set, as the engine needs it to decide one delivery.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeliveryPreferences {
    /// `false` when the subscriber turned everything off (globally or for the workflow).
    pub enabled: bool,
    pub global: ChannelFlags,
    pub per_workflow: ChannelFlags,
    pub schedule: Option<Schedule>,
}

/// The delivery preferences of each (subscriber, workflow) pair, in one query.
pub async fn delivery_preferences(
    conn: &mut AsyncPgConnection,
    pairs: &[(Uuid, Uuid)],
) -> AppResult<HashMap<(Uuid, Uuid), DeliveryPreferences>> {
    let subscriber_ids: Vec<Uuid> = pairs.iter().map(|(subscriber, _)| *subscriber).collect();
    let rows: Vec<(Uuid, StoredPreference)> = subscriber_preferences::table
        .filter(subscriber_preferences::subscriber_id.eq_any(&subscriber_ids))
        .select((subscriber_preferences::subscriber_id, StoredPreference::as_select()))
        .load(conn)
        .await?;
    let by_key: HashMap<(Uuid, Option<Uuid>), StoredPreference> =
        rows.into_iter().map(|(subscriber, row)| ((subscriber, row.workflow_id), row)).collect();
    let mut result = HashMap::with_capacity(pairs.len());
    for &(subscriber_id, workflow_id) in pairs {
        let (global, per_workflow) =
            (by_key.get(&(subscriber_id, None)), by_key.get(&(subscriber_id, Some(workflow_id))));
        result.insert(
            (subscriber_id, workflow_id),
            DeliveryPreferences {
                enabled: global.is_none_or(|row| row.enabled) && per_workflow.is_none_or(|row| row.enabled),
                global: global.map(StoredPreference::flags).unwrap_or_default(),
                per_workflow: per_workflow.map(StoredPreference::flags).unwrap_or_default(),
                schedule: global
                    .and_then(|row| row.schedule.clone())
                    .and_then(|value| serde_json::from_value(value).ok()),
            },
        );
    }
    Ok(result)
}

/// The subscriber's preferences, resolved for every non-critical workflow of the environment.
pub async fn get_preferences(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
) -> AppResult<SubscriberPreferences> {
    let subscriber = get_subscriber(conn, tenant, subscriber_id).await?;
    load_preferences(conn, tenant, &subscriber).await
}

async fn load_preferences(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber: &Subscriber,
) -> AppResult<SubscriberPreferences> {
    let stored: Vec<StoredPreference> = subscriber_preferences::table
        .filter(subscriber_preferences::subscriber_id.eq(subscriber.id))
        .select(StoredPreference::as_select())
        .load(conn)
        .await?;
    let global_row = stored.iter().find(|row| row.workflow_id.is_none());
    let global_flags = global_row.map(StoredPreference::flags).unwrap_or_default();
    let per_workflow: HashMap<Uuid, ChannelFlags> =
        stored.iter().filter_map(|row| Some((row.workflow_id?, row.flags()))).collect();

    let listed: Vec<(WorkflowInfo, Value)> = workflows::table
        .filter(workflows::environment_id.eq(tenant.environment_id))
        .filter(diesel::dsl::not(workflows::deleted))
        .filter(diesel::dsl::not(workflows::critical))
        .order(workflows::id.asc())
        .select((
            workflows::id,
            workflows::identifier,
            workflows::name,
            workflows::updated_at,
            workflows::tags,
            workflows::preferences,
        ))
        .load::<(Uuid, String, String, DateTime<Utc>, Vec<String>, Value)>(conn)
        .await?
        .into_iter()
        .map(|(id, identifier, name, updated_at, tags, preferences)| {
            (WorkflowInfo { id, identifier, name, updated_at, tags }, preferences)
        })
        .collect();
    let ids: Vec<Uuid> = listed.iter().map(|(info, _)| info.id).collect();
    let step_types: Vec<(Uuid, String)> = workflow_steps::table
        .filter(workflow_steps::workflow_id.eq_any(&ids))
        .filter(workflow_steps::active)
        .select((workflow_steps::workflow_id, workflow_steps::type_))
        .load(conn)
        .await?;
    let mut kinds_of: HashMap<Uuid, HashSet<String>> = HashMap::new();
    for (workflow, kind) in step_types {
        kinds_of.entry(workflow).or_default().insert(kind);
    }

    let workflows = listed
        .into_iter()
        .map(|(info, preferences)| {
            let defaults = WorkflowDefaults::from_preferences(&preferences);
            let own = per_workflow.get(&info.id).copied().unwrap_or_default();
            let mut channels = ChannelFlags::default();
            let mut overrides = Vec::new();
            let kinds = kinds_of.get(&info.id);
            for channel in PREFERENCE_CHANNELS {
                if kinds.is_some_and(|kinds| kinds.contains(channel)) {
                    let decision = resolve_channel(channel, &defaults, &global_flags, &own, false);
                    set_flag(&mut channels, channel, decision.enabled);
                    overrides.push((channel, decision.source));
                }
            }
            WorkflowPreference { enabled: defaults.enabled, channels, overrides, workflow: info }
        })
        .collect();

    let mut global_channels = ChannelFlags::default();
    for channel in PREFERENCE_CHANNELS {
        set_flag(&mut global_channels, channel, global_flags.get(channel).unwrap_or(true));
    }
    let schedule = global_row.and_then(|row| row.schedule.clone()).and_then(|value| serde_json::from_value(value).ok());
    Ok(SubscriberPreferences {
        global: GlobalPreference {
            enabled: global_row.is_none_or(|row| row.enabled),
            channels: global_channels,
            schedule,
        },
        workflows,
    })
}

fn set_flag(flags: &mut ChannelFlags, channel: &str, enabled: bool) {
    let slot = match channel {
        "email" => &mut flags.email,
        "sms" => &mut flags.sms,
        "in_app" => &mut flags.in_app,
        "chat" => &mut flags.chat,
        _ => &mut flags.push,
    };
    *slot = Some(enabled);
}

/// Updates the global preferences, or one workflow's when `update.workflow_id` is set, and returns
/// the resulting preferences. A critical workflow's preferences cannot be changed (400).
pub async fn update_preferences(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
    update: PreferencesUpdate,
) -> AppResult<SubscriberPreferences> {
    let mut validator = Validator::new();
    let schedule = update.schedule.map(|schedule| schedule.normalized(&mut validator, "schedule"));
    if update.workflow_id.is_some() && schedule.is_some() {
        validator.reject("schedule", "the schedule is a global preference; send it without workflowId", Value::Null);
    }
    validator.finish()?;

    let subscriber = get_subscriber(conn, tenant, subscriber_id).await?;
    let workflow_id = match &update.workflow_id {
        Some(reference) => Some(find_workflow_for_preferences(conn, tenant, reference).await?),
        None => None,
    };
    let channels = serde_json::to_value(update.channels).map_err(AppError::internal)?;
    let schedule = schedule.map(|schedule| serde_json::to_value(schedule).map_err(AppError::internal)).transpose()?;
    // Flags merge into the stored ones (jsonb `||`); the schedule is replaced only when sent.
    diesel::insert_into(subscriber_preferences::table)
        .values((
            subscriber_preferences::id.eq(Uuid::now_v7()),
            subscriber_preferences::environment_id.eq(tenant.environment_id),
            subscriber_preferences::subscriber_id.eq(subscriber.id),
            subscriber_preferences::workflow_id.eq(workflow_id),
            subscriber_preferences::channels.eq(&channels),
            subscriber_preferences::schedule.eq(&schedule),
        ))
        .on_conflict((subscriber_preferences::subscriber_id, subscriber_preferences::workflow_id))
        .do_update()
        .set((
            subscriber_preferences::channels.eq(diesel::dsl::sql::<diesel::sql_types::Jsonb>(
                "subscriber_preferences.channels || excluded.channels",
            )),
            subscriber_preferences::schedule.eq(diesel::dsl::sql::<
                diesel::sql_types::Nullable<diesel::sql_types::Jsonb>,
            >(
                "COALESCE(excluded.schedule, subscriber_preferences.schedule)"
            )),
            subscriber_preferences::updated_at.eq(Utc::now()),
        ))
        .execute(conn)
        .await?;
    load_preferences(conn, tenant, &subscriber).await
}

/// The workflow named by `_id`, identifier or slug; 404 if none, 400 if critical.
async fn find_workflow_for_preferences(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    reference: &str,
) -> AppResult<Uuid> {
    let workflow = crate::domain::workflows::find_row(conn, tenant, reference, false).await?;
    if workflow.critical {
        return Err(AppError::BadRequest(format!(
            "Workflow {reference} is critical: its preferences cannot be changed by subscribers"
        )));
    }
    Ok(workflow.id)
}
