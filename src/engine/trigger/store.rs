//! The writes of a batch of triggers, each one statement whatever the number of triggers and
//! recipients: the transaction id claims, tenant lookups and upserts, subscriber upserts and topic
//! fan-outs (their notifications and jobs are built by `expand`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Array, Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};
use uuid::Uuid;

use super::fanout::{self, EventTemplate, SubscriberIds};
use super::request::SubscriberInput;
use super::PreparedTrigger;
use crate::db::schema::{topic_fanouts, trigger_transactions, workflows};
use crate::db::unnest::{bind_arrays, static_query_id};
use crate::domain::tenancy::Tenant;
use crate::error::{AppError, AppResult};

#[derive(QueryableByName)]
struct TransactionKey {
    #[diesel(sql_type = SqlUuid)]
    environment_id: Uuid,
    #[diesel(sql_type = Text)]
    transaction_id: String,
}

/// Claims each (environment, transactionId) of `keys` not used before; returns the ones claimed. The rows
/// are written in key order, so two batches claiming overlapping keys cannot deadlock; a key a
/// concurrent batch holds waits for that batch's outcome.
pub async fn claim_transaction_ids(
    conn: &mut AsyncPgConnection,
    keys: &[(Uuid, &str)],
    now: DateTime<Utc>,
) -> AppResult<HashSet<(Uuid, String)>> {
    let (environment_ids, transaction_ids): (Vec<Uuid>, Vec<&str>) = keys.iter().copied().unzip();
    let claimed: Vec<TransactionKey> = TransactionIdClaim { environment_ids, transaction_ids, now }.load(conn).await?;
    Ok(claimed.into_iter().map(|key| (key.environment_id, key.transaction_id)).collect())
}

/// Claims every (environment, transactionId) of `keys`, or none: a key used before is an error
/// (`unique_violation`) that aborts the transaction. For a batch pipelined on the assumption that every
/// key is free (`pipelined`), where no statement may wait for the claim's answer.
pub async fn claim_every_transaction_id(
    mut conn: &AsyncPgConnection,
    keys: &[(Uuid, &str)],
    now: DateTime<Utc>,
) -> AppResult<()> {
    let (environment_ids, transaction_ids): (Vec<Uuid>, Vec<&str>) = keys.iter().copied().unzip();
    EveryTransactionIdClaim(TransactionIdClaim { environment_ids, transaction_ids, now }).execute(&mut conn).await?;
    Ok(())
}

/// The statement of [`claim_transaction_ids`]: its text is the same for every batch, so it is prepared
/// once per connection and, in the batch's generic-plan transaction, planned once (it reads no table a
/// plan could choose a path through, only the conflict's unique index).
struct TransactionIdClaim<'a> {
    environment_ids: Vec<Uuid>,
    transaction_ids: Vec<&'a str>,
    now: DateTime<Utc>,
}

static_query_id!(TransactionIdClaim, diesel::sql_types::Untyped);

impl TransactionIdClaim<'_> {
    /// The insert of the keys, in key order, up to its conflict clause.
    fn push_insert<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("INSERT INTO trigger_transactions (environment_id, transaction_id, created_at) SELECT *, ");
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(" FROM unnest(");
        bind_arrays!(out; SqlUuid: self.environment_ids, Text: self.transaction_ids);
        out.push_sql(") AS k(environment_id, transaction_id) ORDER BY environment_id, transaction_id");
        Ok(())
    }
}

impl QueryFragment<Pg> for TransactionIdClaim<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.push_insert(&mut out)?;
        out.push_sql(" ON CONFLICT DO NOTHING RETURNING environment_id, transaction_id");
        Ok(())
    }
}

/// The statement of [`claim_every_transaction_id`]: the claim without its conflict clause (a type of its
/// own, as its text differs: diesel caches a prepared statement by type).
struct EveryTransactionIdClaim<'a>(TransactionIdClaim<'a>);

static_query_id!(EveryTransactionIdClaim);

impl QueryFragment<Pg> for EveryTransactionIdClaim<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.push_insert(&mut out)
    }
}

/// Whether a trigger with this transaction id exists in the environment.
pub async fn transaction_exists(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    transaction_id: &str,
) -> AppResult<bool> {
    let found = trigger_transactions::table
        .filter(trigger_transactions::environment_id.eq(environment_id))
        .filter(trigger_transactions::transaction_id.eq(transaction_id))
        .count()
        .get_result::<i64>(conn)
        .await?;
    Ok(found > 0)
}

#[derive(QueryableByName)]
struct UpsertedRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    environment_id: Uuid,
    #[diesel(sql_type = Text)]
    key: String,
}

/// Internal ids by (environment, subscriberId or tenant identifier).
pub type IdsByKey = HashMap<(Uuid, String), Uuid>;

/// The ids of `rows`, by their key.
fn ids_by_key(rows: Vec<UpsertedRow>) -> IdsByKey {
    rows.into_iter().map(|row| ((row.environment_id, row.key), row.id)).collect()
}

/// Creates the subscribers that do not exist and writes the present fields of the others (`data`
/// replaced); returns the internal id of each. `inputs` are one per (environment, subscriberId), later
/// fields already merged over earlier ones. One statement for all of them, run again for any row a
/// concurrent batch created meanwhile (invisible to the first statement's snapshot).
pub async fn upsert_subscribers(
    conn: &mut AsyncPgConnection,
    inputs: &[(Tenant, SubscriberInput)],
    now: DateTime<Utc>,
) -> AppResult<IdsByKey> {
    let mut ids = HashMap::with_capacity(inputs.len());
    for _ in 0..3 {
        let missing: Vec<Value> = inputs
            .iter()
            .filter(|(tenant, input)| !ids.contains_key(&(tenant.environment_id, input.subscriber_id.clone())))
            .map(|(tenant, input)| subscriber_record(*tenant, input, Uuid::now_v7()))
            .collect();
        if missing.is_empty() {
            break;
        }
        ids.extend(upsert_subscriber_records(conn, Value::Array(missing), now).await?);
    }
    if ids.len() < inputs.len() {
        return Err(AppError::internal("subscribers could not be upserted after 3 attempts"));
    }
    Ok(ids)
}

/// The row of `input` for [`upsert_subscriber_records`], created with the internal id `id` if it does not
/// exist.
pub fn subscriber_record(tenant: Tenant, input: &SubscriberInput, id: Uuid) -> Value {
    json!({
        "id": id, "environment_id": tenant.environment_id,
        "organization_id": tenant.organization_id, "subscriber_id": input.subscriber_id,
        "email": input.email, "first_name": input.first_name, "last_name": input.last_name,
        "phone": input.phone, "avatar": input.avatar, "locale": input.locale,
        "timezone": input.timezone, "data": input.data,
    })
}

/// Upserts the subscribers of `records` (a JSON array of [`subscriber_record`]s) in one statement;
/// returns the internal id of each, except a row a concurrent batch created after this statement's
/// snapshot was taken.
pub async fn upsert_subscriber_records(
    mut conn: &AsyncPgConnection,
    records: Value,
    now: DateTime<Utc>,
) -> AppResult<IdsByKey> {
    if records.as_array().is_some_and(Vec::is_empty) {
        return Ok(IdsByKey::new());
    }
    let rows: Vec<UpsertedRow> = SubscriberUpsert { records: &records, now }.load(&mut conn).await?;
    Ok(ids_by_key(rows))
}

/// The subscribers of `expected` that are live under their expected internal id, by (environment,
/// subscriberId): by primary key, where the upsert reads them by (environment, subscriberId) and parses
/// each one's fields.
pub async fn find_live_subscribers(mut conn: &AsyncPgConnection, expected: &IdsByKey) -> AppResult<IdsByKey> {
    if expected.is_empty() {
        return Ok(IdsByKey::new());
    }
    let mut lookup = LiveSubscriberLookup {
        environment_ids: Vec::with_capacity(expected.len()),
        subscriber_ids: Vec::with_capacity(expected.len()),
        ids: Vec::with_capacity(expected.len()),
    };
    for ((environment_id, subscriber_id), id) in expected {
        lookup.environment_ids.push(*environment_id);
        lookup.subscriber_ids.push(subscriber_id);
        lookup.ids.push(*id);
    }
    let rows: Vec<UpsertedRow> = lookup.load(&mut conn).await?;
    Ok(ids_by_key(rows))
}

/// The statement of [`find_live_subscribers`], prepared once per connection. Each row is looked up on
/// its own (`LATERAL … LIMIT 1`, which the planner cannot turn into a join): planned generically, a
/// join of the batch's arrays to a small table was a hash join over the whole table (1,001 rows read,
/// 0.2 ms, for 3 subscribers), and only some thousands of rows make the planner probe the index.
struct LiveSubscriberLookup<'a> {
    environment_ids: Vec<Uuid>,
    subscriber_ids: Vec<&'a str>,
    ids: Vec<Uuid>,
}

static_query_id!(LiveSubscriberLookup, diesel::sql_types::Untyped);

impl QueryFragment<Pg> for LiveSubscriberLookup<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("SELECT s.id, s.environment_id, s.subscriber_id AS key FROM unnest(");
        bind_arrays!(out; SqlUuid: self.environment_ids, Text: self.subscriber_ids, SqlUuid: self.ids);
        out.push_sql(
            ") AS e(environment_id, subscriber_id, id) CROSS JOIN LATERAL (SELECT * FROM subscribers s \
             WHERE s.id = e.id AND s.environment_id = e.environment_id AND s.subscriber_id = e.subscriber_id \
             AND NOT s.deleted LIMIT 1) s",
        );
        Ok(())
    }
}

/// The fields of a subscriber a trigger may send: a sent one (not null) replaces the stored one.
const SENT_FIELDS: [&str; 8] = ["email", "first_name", "last_name", "phone", "avatar", "locale", "timezone", "data"];

/// Whether the fields `sent` (a row alias) change the subscriber `stored`, as an SQL condition.
fn changes(sent: &str, stored: &str) -> String {
    let changed = SENT_FIELDS
        .map(|field| format!("({sent}.{field} IS NOT NULL AND {sent}.{field} IS DISTINCT FROM {stored}.{field})"));
    changed.join(" OR ")
}

// Only the subscribers that are new or that a sent field changes are written, in (environment,
// subscriberId) order: one lock order for every batch, so concurrent batches to overlapping recipients
// cannot deadlock. The others are read, not locked: `INSERT … ON CONFLICT DO UPDATE … WHERE` locks the
// existing row even when its WHERE then writes nothing, and every trigger to a known subscriber waited
// for the commit of any other batch naming it, and wrote the lock to the WAL. The change is checked
// again on the locked row: a concurrent batch may have written the same values meanwhile. Each input's
// stored row is read on its own, by the live-key index (`LATERAL … LIMIT 1`, as `LiveSubscriberLookup`
// reads and for the same reason: planned generically, a join read a small table whole).
//
// The text is cut where its two parameters stand, the records (`$1`) and the time (`$2`), which
// `SubscriberUpsert` binds there.
static UPSERT_SUBSCRIBERS: LazyLock<[String; 3]> = LazyLock::new(|| {
    let keep_unsent = SENT_FIELDS.map(|field| format!("{field} = COALESCE(EXCLUDED.{field}, s.{field})")).join(", ");
    let sql = format!(
        "WITH input AS (
             SELECT id, environment_id, organization_id, subscriber_id, email, first_name, last_name, phone, avatar,
                    locale, timezone, NULLIF(data, 'null'::jsonb) AS data
             FROM jsonb_to_recordset($1) AS x(
                 id uuid, environment_id uuid, organization_id uuid, subscriber_id text, email text, first_name text,
                 last_name text, phone text, avatar text, locale text, timezone text, data jsonb)
         ),
         existing AS (
             SELECT s.* FROM input i CROSS JOIN LATERAL (
                 SELECT * FROM subscribers s
                 WHERE s.environment_id = i.environment_id AND s.subscriber_id = i.subscriber_id AND NOT s.deleted
                 LIMIT 1
             ) s
         ),
         writes AS (
             SELECT i.* FROM input i
             LEFT JOIN existing s ON s.environment_id = i.environment_id AND s.subscriber_id = i.subscriber_id
             WHERE s.id IS NULL OR {input_changes}
         ),
         upserted AS (
             INSERT INTO subscribers AS s (id, environment_id, organization_id, subscriber_id, email, first_name,
                                           last_name, phone, avatar, locale, timezone, data, created_at, updated_at)
             SELECT id, environment_id, organization_id, subscriber_id, email, first_name, last_name, phone, avatar,
                    locale, timezone, data, now, now
             FROM writes CROSS JOIN (SELECT $2::timestamptz AS now) t ORDER BY environment_id, subscriber_id
             ON CONFLICT (environment_id, subscriber_id) WHERE NOT deleted DO UPDATE SET
                 {keep_unsent}, version = s.version + 1, updated_at = EXCLUDED.updated_at
             WHERE {row_changes}
             RETURNING s.id, s.environment_id, s.subscriber_id
         )
         SELECT id, environment_id, subscriber_id AS key FROM upserted
         UNION ALL
         SELECT s.id, s.environment_id, s.subscriber_id
         FROM existing s
         WHERE NOT EXISTS (SELECT 1 FROM upserted u
                           WHERE u.environment_id = s.environment_id AND u.subscriber_id = s.subscriber_id)",
        input_changes = changes("i", "s"),
        row_changes = changes("EXCLUDED", "s"),
    );
    let (head, rest) = sql.split_once("$1").expect("the upsert binds its records");
    let (middle, tail) = rest.split_once("$2").expect("the upsert binds its time");
    [head, middle, tail].map(str::to_owned)
});

/// The subscriber upsert as a prepared statement: its text is the same for every batch, so it is
/// prepared once per connection and, inside the batch's generic-plan transaction, planned once. Sent
/// as an unnamed statement it was planned on every batch: 0.4 ms, the largest planning cost of ingest
/// (`pg_stat_statements`, 380 ms of planning for 20,000 triggers).
struct SubscriberUpsert<'a> {
    records: &'a Value,
    now: DateTime<Utc>,
}

static_query_id!(SubscriberUpsert, diesel::sql_types::Untyped);

impl QueryFragment<Pg> for SubscriberUpsert<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let [head, middle, tail] = &*UPSERT_SUBSCRIBERS;
        out.push_sql(head);
        out.push_bind_param::<Jsonb, _>(self.records)?;
        out.push_sql(middle);
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(tail);
        Ok(())
    }
}

/// The ids of the tenants named by (environment, identifier) that exist.
pub async fn find_tenants(conn: &mut AsyncPgConnection, references: &[(Uuid, &str)]) -> AppResult<IdsByKey> {
    if references.is_empty() {
        return Ok(HashMap::new());
    }
    let (environments, identifiers): (Vec<Uuid>, Vec<&str>) = references.iter().copied().unzip();
    let rows: Vec<UpsertedRow> = diesel::sql_query(
        "SELECT t.id, t.environment_id, t.identifier AS key
         FROM tenants t JOIN unnest($1::uuid[], $2::text[]) AS r(environment_id, identifier)
           ON t.environment_id = r.environment_id AND t.identifier = r.identifier",
    )
    .bind::<Array<SqlUuid>, _>(environments)
    .bind::<Array<Text>, _>(identifiers)
    .load(conn)
    .await?;
    Ok(ids_by_key(rows))
}

/// A tenant a trigger creates or updates: its present fields are written.
pub struct TenantUpsert<'a> {
    pub tenant: Tenant,
    pub identifier: &'a str,
    pub name: Option<&'a str>,
    pub data: Option<&'a Value>,
}

/// Creates the tenants or writes their present fields, in one statement; returns their ids. `upserts`
/// are one per (environment, identifier).
pub async fn upsert_tenants(
    conn: &mut AsyncPgConnection,
    upserts: &[TenantUpsert<'_>],
    now: DateTime<Utc>,
) -> AppResult<IdsByKey> {
    if upserts.is_empty() {
        return Ok(HashMap::new());
    }
    let records: Vec<Value> = upserts
        .iter()
        .map(|upsert| {
            json!({
                "id": Uuid::now_v7(), "environment_id": upsert.tenant.environment_id,
                "organization_id": upsert.tenant.organization_id, "identifier": upsert.identifier,
                "name": upsert.name, "data": upsert.data,
            })
        })
        .collect();
    let rows: Vec<UpsertedRow> = diesel::sql_query(
        "INSERT INTO tenants AS t (id, environment_id, organization_id, identifier, name, data, created_at, updated_at)
         SELECT id, environment_id, organization_id, identifier, name, data, $2, $2
         FROM jsonb_to_recordset($1) AS x(id uuid, environment_id uuid, organization_id uuid, identifier text,
                                           name text, data jsonb)
         ORDER BY environment_id, identifier
         ON CONFLICT (environment_id, identifier) DO UPDATE SET
             name = COALESCE(EXCLUDED.name, t.name), data = COALESCE(EXCLUDED.data, t.data),
             updated_at = EXCLUDED.updated_at
         RETURNING t.id, t.environment_id, t.identifier AS key",
    )
    .bind::<Jsonb, _>(Value::Array(records))
    .bind::<Timestamptz, _>(now)
    .load(conn)
    .await?;
    Ok(ids_by_key(rows))
}

/// The fan-out of a trigger to its topics, or to its direct recipients when they are too many for its
/// batch, queued in the transaction that stores the trigger.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = topic_fanouts)]
pub struct NewTopicFanout {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub transaction_id: String,
    pub topic_keys: Vec<String>,
    pub exclude: Vec<String>,
    pub template: Value,
    pub accepted_at: DateTime<Utc>,
    pub status: String,
    pub run_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub recipients: Option<Value>,
}

impl NewTopicFanout {
    /// The fan-out of `template`'s trigger to `topic_keys`, due at once.
    fn to_topics(template: &EventTemplate, topic_keys: &[String], exclude: &[String]) -> AppResult<Self> {
        Self::of(template, topic_keys.to_vec(), exclude.to_vec(), None)
    }

    /// The fan-out of `template`'s trigger to its direct recipients, as
    /// [`fanout::fanned_out_recipients`] lists them, due at once.
    fn to_recipients(template: &EventTemplate, recipients: Value) -> AppResult<Self> {
        Self::of(template, Vec::new(), Vec::new(), Some(recipients))
    }

    fn of(
        template: &EventTemplate,
        topic_keys: Vec<String>,
        exclude: Vec<String>,
        recipients: Option<Value>,
    ) -> AppResult<Self> {
        let accepted_at = template.accepted_at;
        Ok(Self {
            id: Uuid::now_v7(),
            environment_id: template.environment_id,
            organization_id: template.organization_id,
            transaction_id: template.transaction_id.clone(),
            topic_keys,
            exclude,
            template: serde_json::to_value(template).map_err(AppError::internal)?,
            accepted_at,
            status: "queued".into(),
            run_at: accepted_at,
            created_at: accepted_at,
            updated_at: accepted_at,
            recipients,
        })
    }
}

/// The fan-outs of the stored triggers: of each that names topics, to its topics; of each with more
/// direct recipients than its batch stores, to them. `templates` are the triggers', in their order;
/// `subscriber_ids` has every recipient's internal id.
pub fn topic_fanouts_of(
    stored: &[&PreparedTrigger],
    templates: &[EventTemplate],
    subscriber_ids: &SubscriberIds,
) -> AppResult<Vec<NewTopicFanout>> {
    let mut fanouts = Vec::new();
    for (trigger, template) in stored.iter().zip(templates) {
        if !trigger.topic_keys.is_empty() {
            fanouts.push(NewTopicFanout::to_topics(template, &trigger.topic_keys, &trigger.exclude)?);
        }
        if trigger.fans_out_recipients() {
            let recipients = fanout::fanned_out_recipients(trigger, subscriber_ids);
            fanouts.push(NewTopicFanout::to_recipients(template, recipients)?);
        }
    }
    Ok(fanouts)
}

/// Completes the fan-outs of a transaction that are queued or running, whatever pages they have left (a
/// cancel request); returns how many. A page in flight then fails to move the fan-out's cursor and rolls
/// back.
pub async fn stop_fanouts(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    transaction_id: &str,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    Ok(diesel::update(topic_fanouts::table)
        .filter(topic_fanouts::environment_id.eq(environment_id))
        .filter(topic_fanouts::transaction_id.eq(transaction_id))
        .filter(topic_fanouts::status.eq_any(["queued", "running"]))
        .set((
            topic_fanouts::status.eq("completed"),
            topic_fanouts::lease_owner.eq(None::<String>),
            topic_fanouts::updated_at.eq(now),
        ))
        .execute(conn)
        .await?)
}

/// Queues the fan-outs of a batch (to topics, or to a wide trigger's recipients).
pub async fn insert_topic_fanouts(mut conn: &AsyncPgConnection, fanouts: &[NewTopicFanout]) -> AppResult<()> {
    if !fanouts.is_empty() {
        diesel::insert_into(topic_fanouts::table).values(fanouts).execute(&mut conn).await?;
    }
    Ok(())
}

/// `lastTriggeredAt` of the workflows a batch ran, written at most once a second per workflow and
/// outside the batch's transaction, so concurrent batches never queue on a hot workflow's row.
pub async fn record_last_triggered(
    conn: &mut AsyncPgConnection,
    workflow_ids: &[Uuid],
    now: DateTime<Utc>,
) -> AppResult<()> {
    diesel::update(workflows::table)
        .filter(workflows::id.eq_any(workflow_ids))
        .filter(
            workflows::last_triggered_at
                .is_null()
                .or(workflows::last_triggered_at.lt(now - chrono::TimeDelta::seconds(1))),
        )
        .set(workflows::last_triggered_at.eq(now))
        .execute(conn)
        .await?;
    Ok(())
}
