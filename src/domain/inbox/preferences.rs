//! The subscriber's own preferences, as the inbox shows them: the server API's preferences
//! ([`crate::domain::preferences`]), read and written through the same functions, so a change made
//! here is the one the server API and the engine see, and the other way round.

use diesel_async::AsyncPgConnection;

use super::InboxSubscriber;
use crate::domain::preferences::{
    get_preferences, update_preferences, ChannelFlags, PreferencesUpdate, SubscriberPreferences, WorkflowInfo,
};
use crate::error::{AppError, AppResult};

/// One preference: the global one (`workflow` `None`) or one workflow's.
#[derive(Debug, Clone, PartialEq)]
pub struct InboxPreference {
    pub enabled: bool,
    pub channels: ChannelFlags,
    pub workflow: Option<WorkflowInfo>,
}

/// The global preference, then one per non-critical workflow.
fn flatten(preferences: SubscriberPreferences) -> Vec<InboxPreference> {
    let global =
        InboxPreference { enabled: preferences.global.enabled, channels: preferences.global.channels, workflow: None };
    let workflows = preferences.workflows.into_iter().map(|preference| InboxPreference {
        enabled: preference.enabled,
        channels: preference.channels,
        workflow: Some(preference.workflow),
    });
    std::iter::once(global).chain(workflows).collect()
}

/// The subscriber's preferences.
pub async fn inbox_preferences(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
) -> AppResult<Vec<InboxPreference>> {
    Ok(flatten(get_preferences(conn, subscriber.tenant, &subscriber.subscriber_id).await?))
}

/// Sets `channels` (absent flags unchanged) globally, or for the workflow `workflow` (`_id`,
/// identifier or slug: unknown → 404, critical → 400), and returns that preference.
pub async fn update_inbox_preference(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    workflow: Option<String>,
    channels: ChannelFlags,
) -> AppResult<InboxPreference> {
    let update = PreferencesUpdate { channels, workflow_id: workflow.clone(), schedule: None };
    let updated = flatten(update_preferences(conn, subscriber.tenant, &subscriber.subscriber_id, update).await?);
    let names = |info: &WorkflowInfo, reference: &str| {
        info.id.to_string() == reference || info.identifier == reference || info.slug() == reference
    };
    updated
        .into_iter()
        .find(|preference| match (&preference.workflow, &workflow) {
            (None, None) => true,
            (Some(info), Some(reference)) => names(info, reference),
            _ => false,
        })
        .ok_or_else(|| AppError::internal("an updated preference is missing from the subscriber's preferences"))
}
