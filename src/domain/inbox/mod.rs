//! The subscriber inbox: what an end user's browser or app reads and changes of its own in-app
//! messages, with a session token instead of the environment's API key.
//!
//! - [`session`]: `POST /v1/inbox/session` turns a public `applicationIdentifier`, a subscriberId and
//!   (when the in-app integration has `hmac` on) a `subscriberHash` into a short-lived token
//!   ([`token`]) naming one subscriber of one environment.
//! - [`list`], [`count`], [`mark`], [`actions`], [`bulk`]: that subscriber's in-app messages only.
//!   Every query starts from [`owned_by`], which pins the environment, the subscriber and the channel,
//!   so a message id of another subscriber or environment names nothing (404). What the subscriber
//!   sees ([`notifications_of`]) also leaves out what it deleted and, until they come back, what it
//!   snoozed ([`snooze`]: the workers bring those back when due).
//! - [`preferences`]: the subscriber's own preferences, through the server API's preferences module.
//!
//! - [`events`]: the durable, per-subscriber event log every change writes, and the streams (SSE,
//!   gRPC) that replay and follow it.
//!
//! Notifications are the rows of `messages` (channel `in_app`); marking goes through the messages
//! module's state table and row locking ([`crate::domain::messages::MarkAs`]).

mod actions;
mod bulk;
mod count;
mod events;
mod list;
mod mark;
mod preferences;
mod session;
pub mod snooze;
pub mod token;

pub use actions::{is_completed, update_inbox_action, ActionType};
pub use bulk::{update_all_inbox_notifications, BulkChange, MAX_BULK_IDS};
pub use count::{count_inbox_notifications, MAX_FILTERS};
pub use events::{
    arrival_bumps, inbox_events, inbox_position, record_inbox_events, InboxBump, InboxChange, InboxCounts, InboxEvent,
    InboxEventKind, InboxFeed, InboxMessage, InboxPosition,
};
pub use list::{list_inbox_notifications, InboxPage, InboxQuery, DEFAULT_LIMIT, MAX_LIMIT};
pub use mark::{mark_inbox_notification, read_all_inbox_notifications};
pub use preferences::{inbox_preferences, update_inbox_preference, InboxPreference};
pub use session::{create_session, Session, SessionRequest};
pub use snooze::{snooze_until, MIN_SNOOZE};
pub use token::SessionTokens;

use diesel::dsl::exists;
use diesel::pg::Pg;
use diesel::prelude::*;
use uuid::Uuid;

use crate::db::schema::{messages, workflows};
use crate::domain::tenancy::Tenant;

/// The channel whose messages the inbox shows.
pub const INBOX_CHANNEL: &str = "in_app";

/// Whom an inbox call acts for, as its session token names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxSubscriber {
    pub tenant: Tenant,
    /// Internal id of the subscriber.
    pub id: Uuid,
    /// The client's id of the subscriber.
    pub subscriber_id: String,
}

/// Which notifications a listing, count or bulk change is about; `None` does not filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InboxFilter {
    /// Notifications of a workflow with any of these tags (empty: no tag filter).
    pub tags: Vec<String>,
    pub read: Option<bool>,
    pub archived: Option<bool>,
    pub seen: Option<bool>,
    /// `Some(true)`: the snoozed ones only; otherwise those not snoozed (a snoozed notification is
    /// out of sight until it comes back).
    pub snoozed: Option<bool>,
}

/// Every in-app message of the subscriber, whatever its state (deleted and snoozed ones too): what an
/// event or a cursor may name.
fn owned_by(subscriber: &InboxSubscriber) -> messages::BoxedQuery<'static, Pg> {
    messages::table
        .filter(messages::environment_id.eq(subscriber.tenant.environment_id))
        .filter(messages::subscriber_id.eq(subscriber.id))
        .filter(messages::channel.eq(INBOX_CHANNEL))
        .into_boxed()
}

/// The subscriber's in-app messages that match `filter`, never the deleted ones.
fn notifications_of(subscriber: &InboxSubscriber, filter: &InboxFilter) -> messages::BoxedQuery<'static, Pg> {
    let mut query = owned_by(subscriber).filter(messages::deleted_at.is_null());
    query = match filter.snoozed {
        Some(true) => query.filter(messages::snoozed_until.is_not_null()),
        _ => query.filter(messages::snoozed_until.is_null()),
    };
    if !filter.tags.is_empty() {
        // Tags are the workflow's: a message carries none of its own.
        let tagged = workflows::table
            .filter(workflows::id.nullable().eq(messages::workflow_id))
            .filter(workflows::tags.overlaps_with(filter.tags.clone()));
        query = query.filter(exists(tagged));
    }
    if let Some(read) = filter.read {
        query = query.filter(messages::read.eq(read));
    }
    if let Some(seen) = filter.seen {
        query = query.filter(messages::seen.eq(seen));
    }
    match filter.archived {
        Some(true) => query = query.filter(messages::archived_at.is_not_null()),
        Some(false) => query = query.filter(messages::archived_at.is_null()),
        None => {}
    }
    query
}

/// The filter of the badge: unread and not archived.
pub fn unread_filter() -> InboxFilter {
    InboxFilter { read: Some(false), archived: Some(false), ..InboxFilter::default() }
}
