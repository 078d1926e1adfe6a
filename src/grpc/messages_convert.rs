//! Conversions between the message protos and the domain.

use std::collections::HashMap;

use uuid::Uuid;

use super::convert::{enum_name, read_json};
use super::template_convert::template_form;
use crate::domain::messages::{MarkAs, Message, MessagePage, MessageQuery, StoredMessage};
use crate::error::{AppError, AppResult};
use crate::proto::herald::v1 as pb;
use crate::wire::{format_timestamp, json_to_struct};

impl From<pb::ListMessagesRequest> for MessageQuery {
    fn from(request: pb::ListMessagesRequest) -> Self {
        use pb::channel_type_enum::ChannelType;
        let channel =
            request.channel.map(|value| enum_name(ChannelType::try_from(value).ok().map(|c| c.as_str_name())));
        Self {
            channel,
            subscriber_id: request.subscriber_id,
            transaction_ids: request.transaction_id,
            page: request.page,
            limit: request.limit,
        }
    }
}

/// The state change of a request; `None` when unset or not a known value.
pub fn mark_as(value: i32) -> Option<MarkAs> {
    use pb::mark_as_enum::MarkAs as Proto;
    match Proto::try_from(value).ok()? {
        Proto::Read => Some(MarkAs::Read),
        Proto::Seen => Some(MarkAs::Seen),
        Proto::Unread => Some(MarkAs::Unread),
        Proto::Unseen => Some(MarkAs::Unseen),
        Proto::Unspecified => None,
    }
}

impl TryFrom<MessagePage> for pb::ListMessagesResponse {
    type Error = AppError;

    fn try_from(page: MessagePage) -> AppResult<Self> {
        Ok(Self {
            total_count: Some(i32::try_from(page.total_count).unwrap_or(i32::MAX)),
            has_more: page.has_more,
            data: messages_to_proto(page.messages, false)?,
            page_size: page.page_size,
            page: page.page,
        })
    }
}

/// Messages as protos. The template form of each workflow is built once for the whole list;
/// `contextKeys` are written only where the spec shows them (the mark-as answer).
pub fn messages_to_proto(messages: Vec<Message>, with_context_keys: bool) -> AppResult<Vec<pb::Message>> {
    let mut templates: HashMap<Uuid, pb::NotificationTemplate> = HashMap::new();
    messages
        .into_iter()
        .map(|message| {
            let template = message
                .workflow
                .as_deref()
                .map(|stored| templates.entry(stored.workflow.id).or_insert_with(|| template_form(stored)).clone());
            let template_identifier = message
                .row
                .template_identifier
                .clone()
                .or_else(|| message.workflow.as_ref().map(|stored| stored.workflow.identifier.clone()));
            let subscriber = message
                .subscriber
                .map(|subscriber| std::sync::Arc::unwrap_or_clone(subscriber).try_into())
                .transpose()?;
            let mut converted = message_to_proto(message.row, subscriber, template, template_identifier);
            if !with_context_keys {
                converted.context_keys.clear();
            }
            Ok(converted)
        })
        .collect()
}

fn message_to_proto(
    row: StoredMessage,
    subscriber: Option<pb::Subscriber>,
    template: Option<pb::NotificationTemplate>,
    template_identifier: Option<String>,
) -> pb::Message {
    use pb::channel_type_enum::ChannelType;
    use pb::message_status_enum::MessageStatus;
    let message_id = row.id;
    pb::Message {
        id: row.id.to_string(),
        template_id: row.workflow_id.map(|id| id.to_string()),
        message_template_id: row.step_id.map(|id| id.to_string()),
        environment_id: row.environment_id.to_string(),
        organization_id: row.organization_id.to_string(),
        notification_id: row.notification_id.to_string(),
        subscriber_id: row.subscriber_id.to_string(),
        subscriber,
        template,
        template_identifier,
        created_at: format_timestamp(row.created_at),
        delivered_at: row.delivered_at.into_iter().map(format_timestamp).collect(),
        last_seen_date: row.last_seen_date.map(format_timestamp),
        last_read_date: row.last_read_date.map(format_timestamp),
        content: row.content.and_then(|content| read_json("messages.content", message_id, content)),
        transaction_id: row.transaction_id,
        subject: row.subject,
        channel: ChannelType::from_str_name(&row.channel).map(|c| c as i32).unwrap_or_default(),
        read: row.read,
        seen: row.seen,
        snoozed_until: row.snoozed_until.map(format_timestamp),
        email: row.email,
        phone: row.phone,
        direct_webhook_url: row.direct_webhook_url,
        provider_id: row.provider_id,
        device_tokens: row.device_tokens,
        title: row.title,
        // Always present (the spec requires it): `{}` when the step has no action.
        cta: Some(read_json("messages.cta", message_id, row.cta).unwrap_or_default()),
        feed_id: row.feed_id.map(|id| id.to_string()),
        status: MessageStatus::from_str_name(&row.status).map(|s| s as i32).unwrap_or_default(),
        error_id: row.error_id,
        error_text: row.error_text,
        payload: json_to_struct(row.payload),
        overrides: json_to_struct(row.overrides),
        context_keys: row.context_keys,
    }
}
