//! Forgetting destinations a provider says are gone: a device token of an uninstalled app, a deleted
//! chat webhook. They are removed from the subscriber's channel entry, so no later message tries them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::QueryResult;
use diesel_async::AsyncPgConnection;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::db::batch::update_from_records;

/// One destination to forget: in the subscriber's channel entry of one integration, a device token, the
/// webhook URL or the chat channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadDestination {
    /// The subscriber's internal id.
    pub subscriber: Uuid,
    /// The `_integrationId` of the channel entry.
    pub integration_id: Uuid,
    pub what: DeadKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeadKind {
    DeviceToken(String),
    WebhookUrl,
    /// The chat channel id a bot posts to (Slack's `chat.postMessage`).
    Channel,
}

impl DeadKind {
    /// The credential field a dead webhook or channel is removed from.
    fn field(&self) -> Option<&'static str> {
        match self {
            Self::DeviceToken(_) => None,
            Self::WebhookUrl => Some("webhookUrl"),
            Self::Channel => Some("channel"),
        }
    }
}

/// Every entry of a subscriber is rebuilt in its order: the named entries lose their dead tokens and
/// dead credential fields (`webhookUrl`, `channel`), the others stay as they are. A version bump tells readers the
/// subscriber changed.
const REMOVE_DEAD_DESTINATIONS: &str = "UPDATE subscribers AS s
     SET channels = (
             SELECT COALESCE(jsonb_agg(
                 CASE WHEN r.integration_id IS NULL THEN e.entry
                 WHEN cardinality(r.tokens) = 0 THEN jsonb_set(e.entry, '{credentials}', (e.entry -> 'credentials') - r.fields)
                 ELSE jsonb_set(
                     jsonb_set(e.entry, '{credentials}', (e.entry -> 'credentials') - r.fields),
                     '{credentials,deviceTokens}',
                     COALESCE((SELECT jsonb_agg(t.token ORDER BY t.ord)
                               FROM jsonb_array_elements(e.entry #> '{credentials,deviceTokens}')
                                    WITH ORDINALITY AS t(token, ord)
                               WHERE NOT (t.token #>> '{}') = ANY(r.tokens)), '[]'::jsonb))
                 END ORDER BY e.ord), '[]'::jsonb)
             FROM jsonb_array_elements(s.channels) WITH ORDINALITY AS e(entry, ord)
             LEFT JOIN jsonb_to_recordset(u.removals) AS r(integration_id uuid, tokens text[], fields text[])
                    ON e.entry ->> '_integrationId' = r.integration_id::text),
         version = s.version + 1,
         updated_at = $2
     FROM jsonb_to_recordset($1) AS u(subscriber_id uuid, removals jsonb)
     WHERE s.id = u.subscriber_id";

/// Removes `dead` from the subscribers' channel credentials, in one statement.
pub async fn remove_dead_destinations(
    conn: &mut AsyncPgConnection,
    dead: &[DeadDestination],
    now: DateTime<Utc>,
) -> QueryResult<()> {
    update_from_records(conn, REMOVE_DEAD_DESTINATIONS, removal_records(dead), now).await
}

/// One record per subscriber (an UPDATE changes a row once, whatever the number of joined records),
/// listing per integration the tokens and the credential fields to drop.
fn removal_records(dead: &[DeadDestination]) -> Vec<Value> {
    #[derive(Default)]
    struct Removal {
        tokens: Vec<String>,
        fields: Vec<&'static str>,
    }
    let mut by_subscriber: BTreeMap<Uuid, BTreeMap<Uuid, Removal>> = BTreeMap::new();
    for destination in dead {
        let removal =
            by_subscriber.entry(destination.subscriber).or_default().entry(destination.integration_id).or_default();
        match (&destination.what, destination.what.field()) {
            (DeadKind::DeviceToken(token), _) => removal.tokens.push(token.clone()),
            (_, Some(field)) => removal.fields.push(field),
            (_, None) => {}
        }
    }
    by_subscriber
        .into_iter()
        .map(|(subscriber, removals)| {
            let removals: Vec<Value> = removals
                .into_iter()
                .map(|(integration_id, removal)| {
                    json!({"integration_id": integration_id, "tokens": removal.tokens, "fields": removal.fields})
                })
                .collect();
            json!({"subscriber_id": subscriber, "removals": removals})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removals_are_grouped_per_subscriber_then_integration() {
        let (ada, bob, fcm, slack) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3), Uuid::from_u128(4));
        let token = |subscriber, name: &str| DeadDestination {
            subscriber,
            integration_id: fcm,
            what: DeadKind::DeviceToken(name.into()),
        };
        let records = removal_records(&[
            token(ada, "a1"),
            token(bob, "b1"),
            token(ada, "a2"),
            DeadDestination { subscriber: ada, integration_id: slack, what: DeadKind::WebhookUrl },
        ]);
        assert_eq!(
            records,
            [
                json!({"subscriber_id": ada, "removals": [
                    {"integration_id": fcm, "tokens": ["a1", "a2"], "fields": []},
                    {"integration_id": slack, "tokens": [], "fields": ["webhookUrl"]},
                ]}),
                json!({"subscriber_id": bob, "removals": [
                    {"integration_id": fcm, "tokens": ["b1"], "fields": []},
                ]}),
            ]
        );
    }
}
