//! set-primary: one primary integration per channel per environment, enforced by the database.
//!
//! The old primary is cleared and the new one set in one transaction. Two concurrent calls for the
//! same channel cannot both commit: the partial unique index `integrations_one_primary_per_channel_key`
//! makes the later one fail with a unique violation once the first commits. The loser retries its
//! transaction (it then clears the winner), so every call answers 200 and the last one to commit wins.

use std::time::Duration;

use chrono::Utc;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use rand::Rng;
use uuid::Uuid;

use super::store::{decrypt, live_in_environment, not_found};
use super::{get_integration, providers, Integration, IntegrationRow};
use crate::crypto::CredentialCipher;
use crate::db::schema::integrations;
use crate::domain::tenancy::Tenant;
use crate::error::{violated_unique_constraint, AppError, AppResult};

const PRIMARY_INDEX: &str = "integrations_one_primary_per_channel_key";
/// Each failed attempt means another call committed, so this bounds the wait, not correctness.
const MAX_ATTEMPTS: u32 = 25;

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
    for _ in 0..MAX_ATTEMPTS {
        match promote(conn, tenant, current.row.id, &current.row.channel).await {
            Ok(Some(row)) => return decrypt(cipher, row),
            Ok(None) => return Err(not_found(id)),
            Err(error) if violated_unique_constraint(&error).as_deref() == Some(PRIMARY_INDEX) => {
                let pause = rand::rng().random_range(1..20);
                tokio::time::sleep(Duration::from_millis(pause)).await;
            }
            Err(error) => return Err(error.into()),
        }
    }
    Err(AppError::Conflict(format!(
        "Integration {id} could not be made primary: concurrent changes to the {} primary",
        current.row.channel
    )))
}

async fn promote(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    id: Uuid,
    channel: &str,
) -> Result<Option<IntegrationRow>, diesel::result::Error> {
    conn.transaction::<_, diesel::result::Error, _>(async |conn| {
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
