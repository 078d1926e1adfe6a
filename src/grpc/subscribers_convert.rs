//! Conversions between the subscriber protos and the domain.

use pbjson_types::{value::Kind, FieldMask, Value as ProtoValue};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

use crate::domain::preferences::{
    ChannelFlags, GlobalPreference, PreferenceSource, PreferencesUpdate, SubscriberPreferences, WorkflowPreference,
};
use crate::domain::subscribers::{
    ChannelCredentials, ChannelSetting, CredentialsUpdate, NewSubscriber, Patch, ProfilePatch, SearchPage, SearchQuery,
    Subscriber,
};
use crate::error::AppError;
use crate::proto::herald::v1 as pb;
use crate::wire::{format_timestamp, json_to_struct, struct_to_json};

impl TryFrom<Subscriber> for pb::Subscriber {
    type Error = AppError;

    fn try_from(subscriber: Subscriber) -> Result<Self, AppError> {
        let channels = subscriber.channel_settings()?.into_iter().map(pb::ChannelSettings::from).collect();
        Ok(Self {
            id: subscriber.id.to_string(),
            subscriber_id: subscriber.subscriber_id,
            first_name: subscriber.first_name,
            last_name: subscriber.last_name,
            email: subscriber.email,
            phone: subscriber.phone,
            avatar: subscriber.avatar,
            locale: subscriber.locale,
            channels,
            topics: Vec::new(),
            is_online: subscriber.is_online,
            last_online_at: subscriber.last_online_at.map(format_timestamp),
            version: Some(subscriber.version),
            data: subscriber.data.and_then(json_to_struct),
            timezone: subscriber.timezone,
            organization_id: subscriber.organization_id.to_string(),
            environment_id: subscriber.environment_id.to_string(),
            deleted: subscriber.deleted,
            created_at: format_timestamp(subscriber.created_at),
            updated_at: format_timestamp(subscriber.updated_at),
        })
    }
}

/// The subscriber summary a notification event carries.
impl From<Subscriber> for pb::NotificationEventSubscriber {
    fn from(subscriber: Subscriber) -> Self {
        Self {
            subscriber_id: subscriber.subscriber_id,
            id: subscriber.id.to_string(),
            first_name: subscriber.first_name,
            last_name: subscriber.last_name,
            email: subscriber.email,
            phone: subscriber.phone,
        }
    }
}

impl From<ChannelSetting> for pb::ChannelSettings {
    fn from(setting: ChannelSetting) -> Self {
        Self {
            provider_id: setting.provider_id,
            integration_identifier: setting.integration_identifier,
            credentials: Some(setting.credentials.into()),
            integration_id: setting.integration_id.to_string(),
        }
    }
}

impl From<ChannelCredentials> for pb::ChannelCredentials {
    fn from(credentials: ChannelCredentials) -> Self {
        Self {
            webhook_url: credentials.webhook_url,
            channel: credentials.channel,
            device_tokens: credentials.device_tokens,
            alert_uid: credentials.alert_uid,
            title: credentials.title,
            image_url: credentials.image_url,
            state: credentials.state,
            external_url: credentials.external_url,
        }
    }
}

impl From<pb::ChannelCredentials> for ChannelCredentials {
    fn from(credentials: pb::ChannelCredentials) -> Self {
        Self {
            webhook_url: credentials.webhook_url,
            channel: credentials.channel,
            device_tokens: credentials.device_tokens,
            alert_uid: credentials.alert_uid,
            title: credentials.title,
            image_url: credentials.image_url,
            state: credentials.state,
            external_url: credentials.external_url,
        }
    }
}

impl From<pb::CreateSubscriberRequest> for NewSubscriber {
    fn from(request: pb::CreateSubscriberRequest) -> Self {
        Self {
            subscriber_id: request.subscriber_id,
            first_name: request.first_name,
            last_name: request.last_name,
            email: request.email,
            phone: request.phone,
            avatar: request.avatar,
            locale: request.locale,
            timezone: request.timezone,
            data: request.data.as_ref().map(struct_to_json),
        }
    }
}

/// The patch of one field: with a mask, listed fields are set or cleared and the rest kept;
/// without one, set fields are written and nothing is cleared.
fn patch<T>(mask: Option<&FieldMask>, path: &str, value: Option<T>) -> Patch<T> {
    let listed = mask.filter(|mask| !mask.paths.is_empty()).map(|mask| mask.paths.iter().any(|p| p == path));
    match (listed, value) {
        (Some(false), _) | (None, None) => Patch::Keep,
        (_, Some(value)) => Patch::Set(value),
        (Some(true), None) => Patch::Clear,
    }
}

impl From<pb::UpdateSubscriberRequest> for ProfilePatch {
    fn from(request: pb::UpdateSubscriberRequest) -> Self {
        let mask = request.update_mask.as_ref();
        Self {
            first_name: patch(mask, "first_name", request.first_name),
            last_name: patch(mask, "last_name", request.last_name),
            email: patch(mask, "email", request.email),
            phone: patch(mask, "phone", request.phone),
            avatar: patch(mask, "avatar", request.avatar),
            locale: patch(mask, "locale", request.locale),
            timezone: patch(mask, "timezone", request.timezone),
            data: patch(mask, "data", request.data.as_ref().map(struct_to_json)),
        }
    }
}

impl From<pb::SearchSubscribersRequest> for SearchQuery {
    fn from(request: pb::SearchSubscribersRequest) -> Self {
        use pb::order_direction_enum::OrderDirection;
        let ascending = match request.order_direction.and_then(|value| OrderDirection::try_from(value).ok()) {
            Some(OrderDirection::Asc) => Some(true),
            Some(OrderDirection::Desc) => Some(false),
            _ => None,
        };
        Self {
            after: request.after,
            before: request.before,
            limit: request.limit,
            order_by: request.order_by,
            ascending,
            include_cursor: request.include_cursor.unwrap_or(false),
            email: request.email,
            name: request.name,
            phone: request.phone,
            subscriber_id: request.subscriber_id,
        }
    }
}

/// A cursor as the JSON string it is, or JSON `null`: the key is always written.
fn cursor_value(cursor: Option<String>) -> ProtoValue {
    let kind = match cursor {
        Some(cursor) => Kind::StringValue(cursor),
        None => Kind::NullValue(0),
    };
    ProtoValue { kind: Some(kind) }
}

impl TryFrom<SearchPage> for pb::SearchSubscribersResponse {
    type Error = AppError;

    fn try_from(page: SearchPage) -> Result<Self, AppError> {
        Ok(Self {
            data: page.data.into_iter().map(pb::Subscriber::try_from).collect::<Result<_, _>>()?,
            next: Some(cursor_value(page.next)),
            previous: Some(cursor_value(page.previous)),
            total_count: page.total_count as i32,
            total_count_capped: page.total_count_capped,
        })
    }
}

impl From<pb::UpsertSubscriberCredentialsRequest> for CredentialsUpdate {
    fn from(request: pb::UpsertSubscriberCredentialsRequest) -> Self {
        // Mask paths name credential fields as `credentials.device_tokens`; the domain uses JSON names.
        let supplied = request
            .update_mask
            .iter()
            .flat_map(|mask| &mask.paths)
            .filter_map(|path| path.strip_prefix("credentials."))
            .map(camel_case)
            .collect();
        Self {
            provider_id: request.provider_id,
            integration_identifier: request.integration_identifier,
            credentials: request.credentials.map(ChannelCredentials::from),
            supplied,
        }
    }
}

/// `device_tokens` → `deviceTokens`.
fn camel_case(snake: &str) -> String {
    let mut parts = snake.split('_');
    let mut camel = parts.next().unwrap_or_default().to_string();
    for part in parts {
        let mut characters = part.chars();
        if let Some(first) = characters.next() {
            camel.extend(first.to_uppercase());
            camel.push_str(characters.as_str());
        }
    }
    camel
}

/// Re-reads a value through the JSON both sides share (the schedule has the same shape in the API
/// and in the domain).
fn through_json<From: Serialize, To: DeserializeOwned>(value: &From) -> Result<To, AppError> {
    serde_json::to_value(value).and_then(serde_json::from_value).map_err(AppError::internal)
}

impl From<pb::ChannelFlags> for ChannelFlags {
    fn from(flags: pb::ChannelFlags) -> Self {
        Self { email: flags.email, sms: flags.sms, in_app: flags.in_app, chat: flags.chat, push: flags.push }
    }
}

impl From<ChannelFlags> for pb::ChannelFlags {
    fn from(flags: ChannelFlags) -> Self {
        Self { email: flags.email, sms: flags.sms, in_app: flags.in_app, chat: flags.chat, push: flags.push }
    }
}

impl TryFrom<pb::UpdateSubscriberPreferencesRequest> for PreferencesUpdate {
    type Error = AppError;

    fn try_from(request: pb::UpdateSubscriberPreferencesRequest) -> Result<Self, AppError> {
        if request.schedule.as_ref().is_some_and(|schedule| schedule.is_enabled.is_none()) {
            return Err(AppError::invalid_field("schedule.isEnabled", "schedule.isEnabled is required", Value::Null));
        }
        Ok(Self {
            channels: request.channels.map(ChannelFlags::from).unwrap_or_default(),
            workflow_id: request.workflow_id,
            schedule: request.schedule.as_ref().map(through_json).transpose()?,
        })
    }
}

impl TryFrom<SubscriberPreferences> for pb::SubscriberPreferences {
    type Error = AppError;

    fn try_from(preferences: SubscriberPreferences) -> Result<Self, AppError> {
        let GlobalPreference { enabled, channels, schedule } = preferences.global;
        Ok(Self {
            global_preference: Some(pb::SubscriberGlobalPreference {
                enabled,
                channels: Some(channels.into()),
                schedule: schedule.as_ref().map(through_json).transpose()?,
            }),
            workflows: preferences.workflows.into_iter().map(pb::SubscriberWorkflowPreference::from).collect(),
        })
    }
}

impl From<WorkflowPreference> for pb::SubscriberWorkflowPreference {
    fn from(preference: WorkflowPreference) -> Self {
        use pb::channel_type_enum::ChannelType;
        use pb::preference_override_source_enum::PreferenceOverrideSource;
        let overrides = preference
            .overrides
            .iter()
            .map(|(channel, source)| pb::PreferenceOverride {
                channel: ChannelType::from_str_name(channel).unwrap_or(ChannelType::Unspecified) as i32,
                source: match source {
                    PreferenceSource::Subscriber => PreferenceOverrideSource::Subscriber,
                    PreferenceSource::Template => PreferenceOverrideSource::Template,
                } as i32,
            })
            .collect();
        Self {
            enabled: preference.enabled,
            channels: Some(preference.channels.into()),
            overrides,
            workflow: Some(pb::PreferenceWorkflowInfo {
                slug: preference.workflow.slug(),
                identifier: preference.workflow.identifier,
                name: preference.workflow.name,
                updated_at: Some(format_timestamp(preference.workflow.updated_at)),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_decide_between_keep_clear_and_set() {
        let mask = FieldMask { paths: vec!["first_name".into(), "last_name".into()] };
        assert_eq!(patch(Some(&mask), "first_name", Some("Ada")), Patch::Set("Ada"));
        assert_eq!(patch::<&str>(Some(&mask), "last_name", None), Patch::Clear);
        assert_eq!(patch(Some(&mask), "email", Some("ignored@x.io")), Patch::Keep);
        assert_eq!(patch(None, "email", Some("a@x.io")), Patch::Set("a@x.io"));
        assert_eq!(patch::<&str>(None, "email", None), Patch::Keep);
        assert_eq!(patch::<&str>(Some(&FieldMask::default()), "email", None), Patch::Keep);
    }

    #[test]
    fn credential_mask_paths_become_json_names() {
        assert_eq!(camel_case("device_tokens"), "deviceTokens");
        assert_eq!(camel_case("webhook_url"), "webhookUrl");
        assert_eq!(camel_case("title"), "title");
    }
}
