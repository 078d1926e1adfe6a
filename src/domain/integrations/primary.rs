//! set-primary: one primary integration per channel per environment, enforced by the database.
//!
//! The old primary is cleared and the new one set in one transaction that first takes a transaction
//! advisory lock for the (environment, channel): concurrent calls for one channel run one after the
//! other, each seeing the last one's commit, so they never lock the two rows in opposite orders (which
//! deadlocked: 7 to 17 of 30 concurrent calls over three integrations answered 500) and never trip the
//! partial unique index `integrations_one_primary_per_channel_key`, which stays as the guarantee.
//! The last call to take the lock wins; every call answers 200.

use chrono::Utc;
use diesel::prelude::*;
use diesel::sql_types::{Text, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::store::{decrypt, live_in_environment, not_found};
use super::{get_integration, providers, Integration, IntegrationRow};
use crate::crypto::CredentialCipher;
use crate::db::schema::integrations;
use crate::domain::tenancy::Tenant;
use crate::error::{AppError, AppResult};

/// Makes an email or sms integration the primary (and active) one of its channel; the previous
/// primary stays active but is no longer primary. Other channels → 400; already primary → unchanged.
pub async fn set_primary(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
    id: &str,
) -> AppResult<Integration> {
    let current = get_integration(conn, cipher, tenant, id).await?;
    if !providers::supports_primary(&current.row.channel) {
        return Err(AppError::BadRequest(format!(
            "Only email and sms integrations can be primary; integration {id} is a {} integration",
            current.row.channel
        )));
    }
    if current.row.is_primary {
        return Ok(current);
    }
    match promote(conn, tenant, current.row.id, &current.row.channel).await? {
        Some(row) => decrypt(cipher, row),
        None => Err(not_found(id)),
    }
}

async fn promote(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    id: Uuid,
    channel: &str,
) -> Result<Option<IntegrationRow>, diesel::result::Error> {
    conn.transaction::<_, diesel::result::Error, _>(async |conn| {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1::text || '/primary/' || $2, 0))")
            .bind::<SqlUuid, _>(tenant.environment_id)
            .bind::<Text, _>(channel)
            .execute(conn)
            .await?;
        let now = Utc::now();
        diesel::update(
            live_in_environment(tenant)
                .filter(integrations::channel.eq(channel))
                .filter(integrations::is_primary)
                .filter(integrations::id.ne(id)),
        )
        .set((integrations::is_primary.eq(false), integrations::updated_at.eq(now)))
        .execute(conn)
        .await?;
        diesel::update(live_in_environment(tenant).filter(integrations::id.eq(id)))
            .set((integrations::is_primary.eq(true), integrations::active.eq(true), integrations::updated_at.eq(now)))
            .returning(IntegrationRow::as_returning())
            .get_result(conn)
            .await
            .optional()
    })
    .await
}
