//! The events listing: newest first (`createdAt` then `_id`, both descending), offset paging, a time
//! window and the spec's filters, all combined with AND.
//!
//! Where the spec is silent: `after`/`before` bound `createdAt` inclusively and accept RFC 3339 (a
//! date-time without offset is UTC, a bare date is its midnight UTC); `emails` and `subscriberIds`
//! match exactly, deleted subscribers included; the deprecated `search` is a case-sensitive substring
//! of the transactionId or of the subscriber's email or subscriberId; `topicKey` matches the events of
//! every trigger sent to that topic (its members' and, in a trigger naming subscribers too, theirs), as
//! the trigger's fan-out recorded the key: an unknown key matches no event (an empty page, not an error).

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::{load, Event, NotificationRow};
use crate::db::schema::{notifications, subscribers, topic_fanouts};
use crate::domain::subscribers::contains_pattern;
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::domain::workflows::SEVERITIES;
use crate::error::AppResult;

/// How far back the listing looks when `after` is not given: the retention period of events.
pub const RETENTION_DAYS: i64 = 30;
pub const DEFAULT_LIMIT: i32 = 10;
pub const MAX_LIMIT: i32 = 50;

/// The job types an event can have (the `channels` filter).
pub const JOB_TYPES: [&str; 9] = ["in_app", "email", "sms", "chat", "push", "digest", "trigger", "delay", "custom"];

/// A listing request as the client sent it (validated by [`list_notifications`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventQuery {
    /// Job types; an event matches when it has a job of any of them.
    pub channels: Vec<String>,
    /// Workflow `_id`s.
    pub templates: Vec<String>,
    pub emails: Vec<String>,
    /// Deprecated free text.
    pub search: Option<String>,
    /// The client's subscriberIds.
    pub subscriber_ids: Vec<String>,
    pub severity: Vec<String>,
    pub page: Option<i32>,
    pub limit: Option<i32>,
    pub transaction_id: Option<String>,
    pub topic_key: Option<String>,
    pub after: Option<String>,
    pub before: Option<String>,
}

/// One page of events.
#[derive(Debug, Clone, PartialEq)]
pub struct EventPage {
    pub events: Vec<Event>,
    pub has_more: bool,
    pub page: i32,
    pub page_size: i32,
}

/// The validated filters of a listing.
struct Filters {
    environment_id: Uuid,
    after: DateTime<Utc>,
    before: DateTime<Utc>,
    channels: Vec<String>,
    templates: Vec<Uuid>,
    emails: Vec<String>,
    subscriber_ids: Vec<String>,
    severity: Vec<String>,
    transaction_id: Option<String>,
    topic_key: Option<String>,
    search: Option<String>,
}

/// Lists the events of the tenant's environment, newest first; every invalid parameter is reported
/// in one 422.
pub async fn list_notifications(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    query: EventQuery,
) -> AppResult<EventPage> {
    let now = Utc::now();
    let mut validator = Validator::new();
    let page = query.page.unwrap_or(0);
    validator.check(page >= 0, "page", "page must be 0 or more", page);
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    validator.check((1..=MAX_LIMIT).contains(&limit), "limit", "limit must be between 1 and 50", limit);
    let mut instant = |field: &str, text: &Option<String>, default: DateTime<Utc>| match text.as_deref() {
        None => default,
        Some(text) => parse_instant(text).unwrap_or_else(|| {
            validator.reject(field, format!("{field} must be an ISO 8601 date-time"), text);
            default
        }),
    };
    let after = instant("after", &query.after, now - Duration::days(RETENTION_DAYS));
    let before = instant("before", &query.before, now);
    let unknown = |values: &[String], known: &[&str]| -> Vec<String> {
        values.iter().filter(|value| !known.contains(&value.as_str())).cloned().collect()
    };
    let bad_channels = unknown(&query.channels, &JOB_TYPES);
    if !bad_channels.is_empty() {
        validator.reject("channels", format!("channels must be among {}", JOB_TYPES.join(", ")), bad_channels);
    }
    let bad_severities = unknown(&query.severity, &SEVERITIES);
    if !bad_severities.is_empty() {
        validator.reject("severity", format!("severity must be among {}", SEVERITIES.join(", ")), bad_severities);
    }
    let templates: Vec<Option<Uuid>> = query.templates.iter().map(|id| Uuid::parse_str(id).ok()).collect();
    let bad_templates: Vec<String> =
        query.templates.iter().zip(&templates).filter(|(_, id)| id.is_none()).map(|(text, _)| text.clone()).collect();
    if !bad_templates.is_empty() {
        validator.reject("templates", "templates must be workflow _ids", bad_templates);
    }
    validator.finish()?;

    let filters = Filters {
        environment_id: tenant.environment_id,
        after,
        before,
        channels: query.channels,
        templates: templates.into_iter().flatten().collect(),
        emails: query.emails,
        subscriber_ids: query.subscriber_ids,
        severity: query.severity,
        transaction_id: query.transaction_id,
        topic_key: query.topic_key.filter(|key| !key.is_empty()),
        search: query.search.filter(|text| !text.is_empty()),
    };
    let Some(matching) = filtered(conn, &filters).await? else {
        return Ok(EventPage { events: Vec::new(), has_more: false, page, page_size: limit });
    };
    let mut rows: Vec<NotificationRow> = matching
        .order((notifications::created_at.desc(), notifications::id.desc()))
        .offset(i64::from(page) * i64::from(limit))
        .limit(i64::from(limit) + 1)
        .select(NotificationRow::as_select())
        .load(conn)
        .await?;
    let has_more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let events = load::assemble(conn, tenant, rows).await?;
    Ok(EventPage { events, has_more, page, page_size: limit })
}

/// The events matching every filter; `None` when a subscriber or topic filter matches nothing.
///
/// The subscribers a filter names and the triggers sent to a topic are read first, each by a statement
/// of its own, and the events are then matched by their ids. As subqueries, for an environment newer
/// than the tables' statistics (estimated at one row on each side), the planner re-read all of the
/// environment's subscribers (or fan-outs) for every event it walked: 2 s for 4,000 events, four times
/// that for twice as many (docs/performance.md). Read first, they cost one walk of that environment's
/// subscribers until the next `ANALYZE`, and an index lookup after it.
async fn filtered(
    conn: &mut AsyncPgConnection,
    filters: &Filters,
) -> AppResult<Option<notifications::BoxedQuery<'static, Pg>>> {
    let environment_id = filters.environment_id;
    let environment_subscribers = || subscribers::table.filter(subscribers::environment_id.eq(environment_id));
    let mut statement = notifications::table
        .filter(notifications::environment_id.eq(environment_id))
        .filter(notifications::created_at.ge(filters.after))
        .filter(notifications::created_at.le(filters.before))
        .into_boxed();
    if !filters.channels.is_empty() {
        statement = statement.filter(notifications::channels.overlaps_with(filters.channels.clone()));
    }
    if !filters.templates.is_empty() {
        statement = statement.filter(notifications::workflow_id.eq_any(filters.templates.clone()));
    }
    let mut subscriber_filters = Vec::new();
    if !filters.subscriber_ids.is_empty() {
        let named = subscribers::subscriber_id.eq_any(&filters.subscriber_ids);
        subscriber_filters.push(environment_subscribers().filter(named).into_boxed());
    }
    if !filters.emails.is_empty() {
        subscriber_filters
            .push(environment_subscribers().filter(subscribers::email.eq_any(&filters.emails)).into_boxed());
    }
    for matching in subscriber_filters {
        let matching: Vec<Uuid> = matching.select(subscribers::id).load(conn).await?;
        if matching.is_empty() {
            return Ok(None);
        }
        statement = statement.filter(notifications::subscriber_id.eq_any(matching));
    }
    if !filters.severity.is_empty() {
        statement = statement.filter(notifications::severity.eq_any(filters.severity.clone()));
    }
    if let Some(transaction_id) = &filters.transaction_id {
        statement = statement.filter(notifications::transaction_id.eq(transaction_id.clone()));
    }
    if let Some(topic_key) = &filters.topic_key {
        // One fan-out row per trigger sent to topics.
        let sent_to_topic: Vec<String> = topic_fanouts::table
            .filter(topic_fanouts::environment_id.eq(environment_id))
            .filter(topic_fanouts::topic_keys.contains(vec![topic_key.clone()]))
            .select(topic_fanouts::transaction_id)
            .load(conn)
            .await?;
        if sent_to_topic.is_empty() {
            return Ok(None);
        }
        statement = statement.filter(notifications::transaction_id.eq_any(sent_to_topic));
    }
    if let Some(text) = &filters.search {
        let pattern = contains_pattern(text);
        let matching = environment_subscribers()
            .filter(
                subscribers::email
                    .like(pattern.clone())
                    .assume_not_null()
                    .or(subscribers::subscriber_id.like(pattern.clone())),
            )
            .select(subscribers::id);
        statement = statement
            .filter(notifications::transaction_id.like(pattern).or(notifications::subscriber_id.eq_any(matching)));
    }
    Ok(Some(statement))
}

/// An instant as a client writes one: RFC 3339, a date-time without offset (UTC), or a date (midnight UTC).
fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
        return Some(instant.with_timezone(&Utc));
    }
    if let Ok(naive) = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(naive.and_utc());
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok().and_then(|date| date.and_hms_opt(0, 0, 0)).map(|n| n.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_accept_rfc3339_naive_and_dates() {
        let expected = DateTime::parse_from_rfc3339("2026-11-21T10:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(parse_instant("2026-11-21T10:00:00.000Z"), Some(expected));
        assert_eq!(parse_instant("2026-11-21T11:00:00+01:00"), Some(expected));
        assert_eq!(parse_instant("2026-11-21T10:00:00"), Some(expected));
        assert_eq!(parse_instant("2026-11-21"), Some(expected - Duration::hours(10)));
        assert_eq!(parse_instant("yesterday"), None);
        assert_eq!(parse_instant("2026-13-01"), None);
    }
}
