//! The workers' side of the inbox's snooze: each worker process brings back the snoozed notifications
//! that fall due ([`crate::domain::inbox::snooze`]), sleeping until the next one is due, at most the
//! poll interval (so one snoozed by another process meanwhile is at most that late).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::runtime::WorkerShared;
use crate::domain::inbox::snooze::{next_unsnooze_at, unsnooze_due};
use crate::error::AppResult;

/// The shortest sleep: a due row another process is bringing back (skipped here) must not spin this loop.
const MIN_PAUSE: Duration = Duration::from_millis(50);

/// Brings back due notifications until `stop`.
pub async fn unsnooze_periodically(shared: Arc<WorkerShared>, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let pause = match unsnooze_once(&shared).await {
            Ok(pause) => pause,
            Err(error) => {
                tracing::warn!(%error, "bringing back snoozed inbox notifications failed; retrying");
                shared.settings.poll_interval
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stop.changed() => {}
        }
    }
}

/// One pass; returns how long to sleep.
async fn unsnooze_once(shared: &WorkerShared) -> AppResult<Duration> {
    let poll = shared.settings.poll_interval;
    let mut conn = shared.pool.get().await?;
    let back = unsnooze_due(&mut conn, shared.engine.clock.now()).await?;
    if back > 0 {
        tracing::debug!(notifications = back, "snoozed inbox notifications back");
    }
    Ok(match next_unsnooze_at(&mut conn).await? {
        Some(next) => (next - shared.engine.clock.now()).to_std().unwrap_or(Duration::ZERO).min(poll).max(MIN_PAUSE),
        None => poll,
    })
}
