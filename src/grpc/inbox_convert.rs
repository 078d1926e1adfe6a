//! Conversions between the inbox protos and the domain.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::domain::inbox::{
    is_completed, snooze_until, ActionType, BulkChange, InboxEvent, InboxEventKind, InboxFilter, InboxPage,
    InboxPosition, InboxPreference, InboxQuery, Session, SessionRequest, INBOX_CHANNEL,
};
use crate::domain::messages::{MarkAs, Message};
use crate::domain::subscribers::NewSubscriber;
use crate::error::{AppResult, FieldError};
use crate::proto::herald::v1 as pb;
use crate::wire::format_timestamp;

impl From<pb::CreateInboxSessionRequest> for SessionRequest {
    fn from(request: pb::CreateInboxSessionRequest) -> Self {
        // The object form wins over the older bare `subscriberId`.
        let subscriber = match request.subscriber {
            Some(subscriber) => NewSubscriber {
                subscriber_id: subscriber.subscriber_id,
                first_name: subscriber.first_name,
                last_name: subscriber.last_name,
                email: subscriber.email,
                phone: subscriber.phone,
                avatar: subscriber.avatar,
                locale: subscriber.locale,
                timezone: subscriber.timezone,
                data: None,
            },
            None => NewSubscriber { subscriber_id: request.subscriber_id.unwrap_or_default(), ..Default::default() },
        };
        Self {
            application_identifier: request.application_identifier,
            subscriber,
            subscriber_hash: request.subscriber_hash,
        }
    }
}

impl From<Session> for pb::InboxSession {
    fn from(session: Session) -> Self {
        let expires_in = (session.expires_at - chrono::Utc::now()).num_seconds().clamp(0, i64::from(i32::MAX)) as i32;
        let unread = saturating_count(session.total_unread_count);
        Self {
            token: session.token,
            total_unread_count: unread,
            unread_count: Some(pb::InboxUnreadCount { total: unread }),
            expires_at: format_timestamp(session.expires_at),
            expires_in,
            application_identifier: session.application_identifier,
            remove_novu_branding: false,
        }
    }
}

/// A count as the API carries it: a JSON number (proto `int64` would be a string), exact below 2^31
/// (a subscriber with more in-app notifications than that reads 2^31 - 1).
pub fn saturating_count(count: i64) -> i32 {
    i32::try_from(count).unwrap_or(i32::MAX)
}

/// The metadata (gRPC) and headers (REST) with which every inbox change answers where the inbox stands
/// right after it: the exact unread and unseen counts, and the latest event number they are the counts
/// of (the stream's `id:`), so a badge needs no second call and a client can tell them from older ones.
/// Metadata, not fields: the reference service's answers (a notification, or 204) keep their shape.
pub const POSITION_METADATA: [&str; 3] =
    ["herald-inbox-unread-count", "herald-inbox-unseen-count", "herald-inbox-last-event-id"];

/// `message` answered with the inbox's `position` in its metadata.
pub fn with_position<T>(message: T, position: InboxPosition) -> tonic::Response<T> {
    let mut response = tonic::Response::new(message);
    let values = [position.counts.unread, position.counts.unseen, position.last_event_id];
    for (name, value) in POSITION_METADATA.into_iter().zip(values) {
        response.metadata_mut().insert(name, value.into());
    }
    response
}

impl From<pb::InboxFilter> for InboxFilter {
    fn from(filter: pb::InboxFilter) -> Self {
        Self {
            tags: filter.tags,
            read: filter.read,
            archived: filter.archived,
            seen: filter.seen,
            snoozed: filter.snoozed,
        }
    }
}

impl From<InboxFilter> for pb::InboxFilter {
    fn from(filter: InboxFilter) -> Self {
        Self {
            tags: filter.tags,
            read: filter.read,
            archived: filter.archived,
            seen: filter.seen,
            snoozed: filter.snoozed,
        }
    }
}

impl From<pb::ListInboxNotificationsRequest> for InboxQuery {
    fn from(request: pb::ListInboxNotificationsRequest) -> Self {
        Self { filter: request.filter.unwrap_or_default().into(), limit: request.limit, after: request.after }
    }
}

/// The listing's answer: the page and the filter it applied.
pub fn list_response(page: InboxPage, filter: InboxFilter) -> pb::ListInboxNotificationsResponse {
    pb::ListInboxNotificationsResponse {
        data: page.notifications.into_iter().map(pb::InboxNotification::from).collect(),
        has_more: page.has_more,
        filter: Some(filter.into()),
        next: page.next,
    }
}

/// The state change of a mark request (a snooze until a time at least a minute after `now`); 422 when
/// unset or unknown.
pub fn inbox_mark(request: &pb::MarkInboxNotificationRequest, now: DateTime<Utc>) -> AppResult<MarkAs> {
    use pb::inbox_mark_enum::InboxMark as Proto;
    let mark = match Proto::try_from(request.mark).unwrap_or(Proto::Unspecified) {
        Proto::Read => MarkAs::Read,
        Proto::Unread => MarkAs::Unread,
        Proto::Archive => MarkAs::Archive,
        Proto::Unarchive => MarkAs::Unarchive,
        Proto::Snooze => MarkAs::Snooze(snooze_until(request.snooze_until.as_deref(), now)?),
        Proto::Unsnooze => MarkAs::Unsnooze,
        Proto::Unspecified => {
            let message = "mark must be one of read, unread, archive, unarchive, snooze, unsnooze";
            return Err(FieldError::new("mark", message, request.mark).into());
        }
    };
    Ok(mark)
}

/// The change of a bulk request; `None` when unset or unknown.
pub fn bulk_change(value: i32) -> Option<BulkChange> {
    use pb::inbox_bulk_change_enum::InboxBulkChange as Proto;
    match Proto::try_from(value).ok()? {
        Proto::Archive => Some(BulkChange::Archive),
        Proto::ArchiveRead => Some(BulkChange::ArchiveRead),
        Proto::Seen => Some(BulkChange::Seen),
        Proto::Delete => Some(BulkChange::Delete),
        Proto::Unspecified => None,
    }
}

/// The action button of an action request; `None` when unset or unknown.
pub fn action_type(value: i32) -> Option<ActionType> {
    use pb::inbox_action_type_enum::InboxActionType as Proto;
    match Proto::try_from(value).ok()? {
        Proto::Primary => Some(ActionType::Primary),
        Proto::Secondary => Some(ActionType::Secondary),
        Proto::Unspecified => None,
    }
}

impl From<InboxPreference> for pb::InboxPreference {
    fn from(preference: InboxPreference) -> Self {
        Self {
            level: if preference.workflow.is_some() { "template" } else { "global" }.to_string(),
            enabled: preference.enabled,
            channels: Some(preference.channels.into()),
            // Critical workflows have no subscriber preferences: every one listed is not critical.
            workflow: preference.workflow.map(|workflow| pb::InboxPreferenceWorkflow {
                id: workflow.id.to_string(),
                identifier: workflow.identifier,
                name: workflow.name,
                critical: false,
                tags: workflow.tags,
            }),
        }
    }
}

/// The inbox form of an in-app message. Its `cta` (`{type, data: {url}, action: {status, buttons}}`,
/// what the in-app step stored) gives the redirect and the action buttons; `body` is the rendered
/// content.
impl From<Message> for pb::InboxNotification {
    fn from(message: Message) -> Self {
        let row = message.row;
        let body = match &row.content {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let action = |kind: ActionType| {
            let buttons = row.cta.pointer("/action/buttons").and_then(Value::as_array)?;
            let button =
                buttons.iter().find(|button| button.get("type").and_then(Value::as_str) == Some(kind.name()))?;
            Some(pb::InboxAction {
                label: button.get("content").and_then(Value::as_str).unwrap_or_default().to_string(),
                is_completed: is_completed(&row.cta, kind),
                redirect: button
                    .get("url")
                    .and_then(Value::as_str)
                    .map(|url| pb::InboxRedirect { url: url.to_string(), target: None }),
            })
        };
        let redirect = row.cta.pointer("/data/url").and_then(Value::as_str).map(|url| pb::InboxRedirect {
            url: url.to_string(),
            target: row.cta.pointer("/data/target").and_then(Value::as_str).map(str::to_string),
        });
        let workflow = message.workflow.as_ref().map(|stored| &stored.workflow);
        let to = message.subscriber.as_ref().map(|subscriber| pb::InboxRecipient {
            id: subscriber.id.to_string(),
            subscriber_id: subscriber.subscriber_id.clone(),
            first_name: subscriber.first_name.clone(),
            last_name: subscriber.last_name.clone(),
            avatar: subscriber.avatar.clone(),
        });
        Self {
            id: row.id.to_string(),
            transaction_id: row.transaction_id.clone(),
            subject: row.subject.clone(),
            body,
            to,
            is_read: row.read,
            is_seen: row.seen,
            is_archived: row.archived_at.is_some(),
            created_at: format_timestamp(row.created_at),
            read_at: row.last_read_date.map(format_timestamp),
            seen_at: row.last_seen_date.map(format_timestamp),
            archived_at: row.archived_at.map(format_timestamp),
            primary_action: action(ActionType::Primary),
            secondary_action: action(ActionType::Secondary),
            channel_type: INBOX_CHANNEL.to_string(),
            tags: workflow.map(|workflow| workflow.tags.clone()).unwrap_or_default(),
            redirect,
            workflow: workflow.map(|workflow| pb::InboxWorkflow {
                id: workflow.id.to_string(),
                identifier: workflow.identifier.clone(),
                name: workflow.name.clone(),
                critical: workflow.critical,
                tags: workflow.tags.clone(),
                severity: workflow.severity.clone(),
            }),
            severity: workflow.map_or_else(|| "none".to_string(), |workflow| workflow.severity.clone()),
            is_snoozed: row.snoozed_until.is_some(),
            snoozed_until: row.snoozed_until.map(format_timestamp),
        }
    }
}

impl From<InboxEvent> for pb::InboxEvent {
    fn from(event: InboxEvent) -> Self {
        use pb::inbox_event_kind_enum::InboxEventKind as Proto;
        let kind = match event.kind {
            InboxEventKind::Received => Proto::Received,
            InboxEventKind::Changed => Proto::Changed,
            InboxEventKind::Reset => Proto::Reset,
            InboxEventKind::Counts => Proto::Counts,
        };
        Self {
            id: event.seq,
            kind: kind.into(),
            change: event.change,
            notification: event.notification.map(|message| (*message).into()),
            unread_count: saturating_count(event.counts.unread),
            unseen_count: saturating_count(event.counts.unseen),
        }
    }
}
