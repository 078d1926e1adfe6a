//! Seed data for a new environment (filled in with the domain schema).
use diesel_async::AsyncPgConnection;
pub async fn seed_environment(
    _conn: &mut AsyncPgConnection,
    _env: &super::tenancy::Environment,
) -> crate::error::AppResult<()> {
    Ok(())
}
