//! Conversions between the inbox protos and the domain.

use serde_json::Value;

use crate::domain::inbox::{
    InboxEvent, InboxEventKind, InboxFilter, InboxPage, InboxQuery, Session, SessionRequest, INBOX_CHANNEL,
};
use crate::domain::messages::{MarkAs, Message};
use crate::domain::subscribers::NewSubscriber;
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

impl From<pb::InboxFilter> for InboxFilter {
    fn from(filter: pb::InboxFilter) -> Self {
        Self { tags: filter.tags, read: filter.read, archived: filter.archived, seen: filter.seen }
    }
}

impl From<InboxFilter> for pb::InboxFilter {
    fn from(filter: InboxFilter) -> Self {
        Self { tags: filter.tags, read: filter.read, archived: filter.archived, seen: filter.seen }
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

/// The state change of a mark request; `None` when unset or unknown.
pub fn inbox_mark(value: i32) -> Option<MarkAs> {
    use pb::inbox_mark_enum::InboxMark as Proto;
    match Proto::try_from(value).ok()? {
        Proto::Read => Some(MarkAs::Read),
        Proto::Unread => Some(MarkAs::Unread),
        Proto::Archive => Some(MarkAs::Archive),
        Proto::Unarchive => Some(MarkAs::Unarchive),
        Proto::Unspecified => None,
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
        let done = row.cta.pointer("/action/status").and_then(Value::as_str) == Some("done");
        let action = |kind: &str| {
            let buttons = row.cta.pointer("/action/buttons").and_then(Value::as_array)?;
            let button = buttons.iter().find(|button| button.get("type").and_then(Value::as_str) == Some(kind))?;
            Some(pb::InboxAction {
                label: button.get("content").and_then(Value::as_str).unwrap_or_default().to_string(),
                is_completed: done,
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
            primary_action: action("primary"),
            secondary_action: action("secondary"),
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
            notification: event.notification.map(Into::into),
            unread_count: saturating_count(event.counts.unread),
            unseen_count: saturating_count(event.counts.unseen),
        }
    }
}
