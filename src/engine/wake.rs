//! Waking workers: `NOTIFY` on a channel named after the database schema (channels are per database,
//! and several Herald deployments, or tests, may share one database with a schema each).

use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::error::AppResult;

/// The channel workers of the connection's schema listen on.
pub async fn wake_channel(conn: &mut AsyncPgConnection) -> AppResult<String> {
    #[derive(diesel::QueryableByName)]
    struct Schema {
        #[diesel(sql_type = Text)]
        name: String,
    }
    let schema: Schema = diesel::sql_query("SELECT current_schema() AS name").get_result(conn).await?;
    // Channel names are identifiers: at most 63 bytes.
    let mut channel = format!("herald_jobs_{}", schema.name);
    channel.truncate(63);
    Ok(channel)
}

/// Wakes the workers once the surrounding transaction commits (immediately outside one).
pub async fn notify_workers(conn: &mut AsyncPgConnection, channel: &str) -> AppResult<()> {
    diesel::sql_query("SELECT pg_notify($1, '')").bind::<Text, _>(channel).execute(conn).await?;
    Ok(())
}
