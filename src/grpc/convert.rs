//! Conversions shared by every service.

use chrono::{DateTime, SecondsFormat, Utc};

/// The contract's timestamp form: RFC 3339, UTC, milliseconds, `Z` (`2026-11-21T10:00:00.000Z`).
pub fn format_timestamp(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Millis, true)
}
