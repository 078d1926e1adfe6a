//! Subscriber search: case-sensitive substring filters (AND), cursor paging in both directions.
//!
//! The cursor is the `_id` of a boundary row; rows are ordered by (`orderBy` column, `_id`), so a
//! page boundary is exact even when many rows share a timestamp, and rows inserted meanwhile
//! never cause a duplicate or a gap among the rows that existed.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use diesel::expression::BoxableExpression;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::Bool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::Subscriber;
use crate::db::schema::subscribers;
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::AppResult;

/// Counting stops here; `totalCountCapped` then says `totalCount` is a lower bound.
pub const TOTAL_COUNT_CAP: usize = 10_000;
const DEFAULT_LIMIT: i32 = 10;
const MAX_LIMIT: i32 = 100;

/// The sort column of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderBy {
    Id,
    CreatedAt,
    UpdatedAt,
}

impl FromStr for OrderBy {
    type Err = ();

    fn from_str(name: &str) -> Result<Self, ()> {
        match name {
            "_id" => Ok(OrderBy::Id),
            "createdAt" => Ok(OrderBy::CreatedAt),
            "updatedAt" => Ok(OrderBy::UpdatedAt),
            _ => Err(()),
        }
    }
}

/// A search as the client asked for it (validated by [`search_subscribers`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchQuery {
    pub after: Option<String>,
    pub before: Option<String>,
    pub limit: Option<i32>,
    pub order_by: Option<String>,
    /// `None` is the default order, descending.
    pub ascending: Option<bool>,
    pub include_cursor: bool,
    pub email: Option<String>,
    pub name: Option<String>,
    pub phone: Option<String>,
    pub subscriber_id: Option<String>,
}

/// One page of results.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    pub data: Vec<Subscriber>,
    /// `_id` of the last row when more rows follow.
    pub next: Option<String>,
    /// `_id` of the first row when rows precede.
    pub previous: Option<String>,
    pub total_count: usize,
    pub total_count_capped: bool,
}

/// Where a cursor row sits in the order.
#[derive(Debug, Clone, Copy)]
struct SortKey {
    id: Uuid,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

/// Which side of a sort key a condition selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Greater,
    Less,
}

impl Side {
    fn opposite(self) -> Self {
        match self {
            Side::Greater => Side::Less,
            Side::Less => Side::Greater,
        }
    }
}

type Condition = Box<dyn BoxableExpression<subscribers::table, Pg, SqlType = Bool>>;

/// Searches the live subscribers of the tenant's environment.
pub async fn search_subscribers(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    query: SearchQuery,
) -> AppResult<SearchPage> {
    let mut validator = Validator::new();
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    validator.check((1..=MAX_LIMIT).contains(&limit), "limit", "limit must be between 1 and 100", limit);
    let order_by = match query.order_by.as_deref() {
        None => OrderBy::Id,
        Some(name) => name.parse().unwrap_or_else(|()| {
            validator.reject("orderBy", "orderBy must be one of _id, createdAt, updatedAt", name);
            OrderBy::Id
        }),
    };
    if query.after.is_some() && query.before.is_some() {
        validator.reject(
            "before",
            "after and before cannot be used together",
            query.before.clone().unwrap_or_default(),
        );
    }
    let (cursor_field, cursor) = match (&query.after, &query.before) {
        (Some(after), _) => ("after", Some(after)),
        (None, Some(before)) => ("before", Some(before)),
        (None, None) => ("", None),
    };
    let cursor_key = match cursor {
        Some(cursor) => {
            let key = sort_key(conn, tenant, cursor).await?;
            validator.check(
                key.is_some(),
                cursor_field,
                format!("{cursor_field} must be the _id of a subscriber"),
                cursor.as_str(),
            );
            key
        }
        None => None,
    };
    validator.finish()?;

    let ascending = query.ascending.unwrap_or(false);
    // The side of the cursor that "after" means in the listing order.
    let forward = if ascending { Side::Greater } else { Side::Less };
    let backwards = query.before.is_some();
    let fetch_side = if backwards { forward.opposite() } else { forward };

    let mut page_query = filtered(&query, tenant);
    if let Some(key) = cursor_key {
        page_query = page_query.filter(beyond(order_by, fetch_side, key, query.include_cursor));
    }
    let fetch_ascending = fetch_side == Side::Greater;
    let mut rows: Vec<Subscriber> =
        ordered(page_query, order_by, fetch_ascending).limit(i64::from(limit) + 1).load(conn).await?;
    let more_in_fetch_direction = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    if backwards {
        rows.reverse();
    }

    // Whether rows lie beyond the page on the side we did not fetch from. Without a cursor the page
    // starts the listing, so nothing precedes it.
    let more_on_other_side = match (cursor_key, rows.as_slice().first(), rows.as_slice().last()) {
        (Some(_), Some(first), Some(last)) => {
            let (edge, side) = if backwards { (last, forward) } else { (first, forward.opposite()) };
            let edge_key = SortKey { id: edge.id, created_at: edge.created_at, updated_at: edge.updated_at };
            // Same shape as the page query (ordered, limited) so the planner serves it the same way:
            // through the filter's index, not by walking the sort index row by row.
            let beyond_edge = filtered(&query, tenant).filter(beyond(order_by, side, edge_key, false));
            let nearest: Vec<Subscriber> =
                ordered(beyond_edge, order_by, side == Side::Greater).limit(1).load(conn).await?;
            !nearest.is_empty()
        }
        _ => false,
    };
    let (has_next, has_previous) = if backwards {
        (more_on_other_side, more_in_fetch_direction)
    } else {
        (more_in_fetch_direction, more_on_other_side)
    };

    let counted: Vec<Uuid> =
        filtered(&query, tenant).select(subscribers::id).limit(TOTAL_COUNT_CAP as i64 + 1).load(conn).await?;
    let total_count_capped = counted.len() > TOTAL_COUNT_CAP;

    Ok(SearchPage {
        next: if has_next { rows.as_slice().last().map(|row| row.id.to_string()) } else { None },
        previous: if has_previous { rows.as_slice().first().map(|row| row.id.to_string()) } else { None },
        data: rows,
        total_count: counted.len().min(TOTAL_COUNT_CAP),
        total_count_capped,
    })
}

/// The live subscribers of the environment matching every filter of `query`.
fn filtered(query: &SearchQuery, tenant: Tenant) -> subscribers::BoxedQuery<'static, Pg, subscribers::SqlType> {
    let mut statement = subscribers::table
        .filter(subscribers::environment_id.eq(tenant.environment_id))
        // Spelled as a literal so the partial indexes (WHERE NOT deleted) apply.
        .filter(diesel::dsl::not(subscribers::deleted))
        .into_boxed();
    if let Some(email) = &query.email {
        statement = statement.filter(subscribers::email.like(contains_pattern(email)));
    }
    if let Some(phone) = &query.phone {
        statement = statement.filter(subscribers::phone.like(contains_pattern(phone)));
    }
    if let Some(subscriber_id) = &query.subscriber_id {
        statement = statement.filter(subscribers::subscriber_id.like(contains_pattern(subscriber_id)));
    }
    if let Some(name) = &query.name {
        statement = statement.filter(subscribers::full_name.like(contains_pattern(name)));
    }
    statement
}

fn ordered(
    statement: subscribers::BoxedQuery<'static, Pg, subscribers::SqlType>,
    order_by: OrderBy,
    ascending: bool,
) -> diesel::dsl::Select<
    subscribers::BoxedQuery<'static, Pg, subscribers::SqlType>,
    diesel::dsl::AsSelect<Subscriber, Pg>,
> {
    use subscribers::{created_at, id, updated_at};
    let statement = match (order_by, ascending) {
        (OrderBy::Id, true) => statement.order(id.asc()),
        (OrderBy::Id, false) => statement.order(id.desc()),
        (OrderBy::CreatedAt, true) => statement.order((created_at.asc(), id.asc())),
        (OrderBy::CreatedAt, false) => statement.order((created_at.desc(), id.desc())),
        (OrderBy::UpdatedAt, true) => statement.order((updated_at.asc(), id.asc())),
        (OrderBy::UpdatedAt, false) => statement.order((updated_at.desc(), id.desc())),
    };
    statement.select(Subscriber::as_select())
}

/// Rows strictly on `side` of `key` in (column, id) order, or also the key row when `inclusive`.
fn beyond(order_by: OrderBy, side: Side, key: SortKey, inclusive: bool) -> Condition {
    use subscribers::{created_at, id, updated_at};
    let id_beyond: Condition = match (side, inclusive) {
        (Side::Greater, false) => Box::new(id.gt(key.id)),
        (Side::Greater, true) => Box::new(id.ge(key.id)),
        (Side::Less, false) => Box::new(id.lt(key.id)),
        (Side::Less, true) => Box::new(id.le(key.id)),
    };
    match (order_by, side) {
        (OrderBy::Id, _) => id_beyond,
        (OrderBy::CreatedAt, Side::Greater) => {
            Box::new(created_at.gt(key.created_at).or(created_at.eq(key.created_at).and(id_beyond)))
        }
        (OrderBy::CreatedAt, Side::Less) => {
            Box::new(created_at.lt(key.created_at).or(created_at.eq(key.created_at).and(id_beyond)))
        }
        (OrderBy::UpdatedAt, Side::Greater) => {
            Box::new(updated_at.gt(key.updated_at).or(updated_at.eq(key.updated_at).and(id_beyond)))
        }
        (OrderBy::UpdatedAt, Side::Less) => {
            Box::new(updated_at.lt(key.updated_at).or(updated_at.eq(key.updated_at).and(id_beyond)))
        }
    }
}

/// The sort key of the cursor row (deleted rows included, so paging survives a concurrent delete).
async fn sort_key(conn: &mut AsyncPgConnection, tenant: Tenant, cursor: &str) -> AppResult<Option<SortKey>> {
    let Ok(id) = Uuid::parse_str(cursor) else { return Ok(None) };
    let row = subscribers::table
        .filter(subscribers::environment_id.eq(tenant.environment_id))
        .filter(subscribers::id.eq(id))
        .select((subscribers::created_at, subscribers::updated_at))
        .first::<(DateTime<Utc>, DateTime<Utc>)>(conn)
        .await
        .optional()?;
    Ok(row.map(|(created_at, updated_at)| SortKey { id, created_at, updated_at }))
}

/// A LIKE pattern matching `text` anywhere, with LIKE's own wildcards escaped.
pub(crate) fn contains_pattern(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%{escaped}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_wildcards_in_filters_match_literally() {
        assert_eq!(contains_pattern("a_b%c\\d"), "%a\\_b\\%c\\\\d%");
    }

    #[test]
    fn order_by_accepts_only_the_contract_fields() {
        assert_eq!("_id".parse(), Ok(OrderBy::Id));
        assert_eq!("createdAt".parse(), Ok(OrderBy::CreatedAt));
        assert_eq!("updatedAt".parse(), Ok(OrderBy::UpdatedAt));
        assert_eq!("email".parse::<OrderBy>(), Err(()));
    }
}
