//! Wall-clock times as schedules, delays and digest windows read them.

use chrono::{DateTime, Duration, LocalResult, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// Reads `09:00 AM`, `9:05 pm` (12-hour) or `09:00`, `21:30` (24-hour).
pub fn parse_time_of_day(text: &str) -> Option<NaiveTime> {
    let text = text.trim();
    let (clock, meridiem) = match text.len().checked_sub(2).map(|split| text.split_at(split)) {
        Some((clock, suffix)) if suffix.eq_ignore_ascii_case("am") || suffix.eq_ignore_ascii_case("pm") => {
            (clock.trim_end(), Some(suffix.eq_ignore_ascii_case("pm")))
        }
        _ => (text, None),
    };
    let (hours, minutes) = clock.split_once(':')?;
    if !(1..=2).contains(&hours.len()) || minutes.len() != 2 {
        return None;
    }
    let (hours, minutes): (u32, u32) = (hours.parse().ok()?, minutes.parse().ok()?);
    if minutes > 59 {
        return None;
    }
    let hours = match meridiem {
        Some(pm) if (1..=12).contains(&hours) => hours % 12 + if pm { 12 } else { 0 },
        Some(_) => return None,
        None if hours <= 23 => hours,
        None => return None,
    };
    NaiveTime::from_hms_opt(hours, minutes, 0)
}

/// A wall-clock time in `timezone` as an instant: the earlier one when the clock repeats, the
/// first valid time after the gap when it skips (spring forward).
pub fn resolve_local(timezone: Tz, local: NaiveDateTime) -> DateTime<Utc> {
    let mut probe = local;
    loop {
        match timezone.from_local_datetime(&probe) {
            LocalResult::Single(time) | LocalResult::Ambiguous(time, _) => return time.with_timezone(&Utc),
            LocalResult::None => probe += Duration::minutes(15),
        }
    }
}
