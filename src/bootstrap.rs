//! First start of the zero-configuration run: an organization, a `development` environment, an
//! API key (printed once and written to a 0600 file in the data directory), an active in-app
//! integration and a `welcome` workflow, so that a newcomer can trigger a notification at once.
//! Runs only on Herald's private cluster; with `DATABASE_URL` nothing is created implicitly.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::crypto::CredentialCipher;
use crate::db::schema::organizations;
use crate::db::DbPool;
use crate::domain::tenancy;

/// Name of the file, inside the data directory, holding the first API key.
pub const API_KEY_FILE: &str = "api-key";

/// Seeds an empty database. Does nothing when any organization exists already.
pub async fn first_start(pool: &DbPool, cipher: &CredentialCipher, data_dir: &Path) -> anyhow::Result<()> {
    let mut conn = pool.get().await?;
    let organizations: i64 = organizations::table.count().get_result(&mut conn).await?;
    if organizations > 0 {
        let key_file = data_dir.join(API_KEY_FILE);
        if key_file.exists() {
            tracing::info!(file = %key_file.display(), "the first API key is in this file");
        }
        return Ok(());
    }
    let (environment, key) = tenancy::create_environment(&mut conn, cipher, "Default", "development").await?;
    crate::domain::seed::seed_environment(&mut conn, cipher, &environment).await?;
    let key_file = write_key_file(data_dir, &key.key)?;
    println!("Herald is ready. API key for environment 'development' (also in {}):", key_file.display());
    println!("{}", key.key);
    Ok(())
}

fn write_key_file(data_dir: &Path, key: &str) -> std::io::Result<PathBuf> {
    let path = data_dir.join(API_KEY_FILE);
    let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&path)?;
    writeln!(file, "{key}")?;
    Ok(path)
}
