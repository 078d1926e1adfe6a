//! When a digest window closes. Regular and backoff windows last `amount` `unit`s from the event that
//! opens them; timed windows close at the next occurrence of a schedule in the subscriber's timezone,
//! given as a `cron` expression or as the `timed` object (atTime, weekDays, monthDays, ordinal,
//! ordinalValue, monthlyType) with `amount` and `unit`.

use std::str::FromStr;

use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveTime, Timelike, Utc, Weekday};
use chrono_tz::Tz;

use super::controls::{DigestControls, DigestType, TimeSpan, TimeUnit, TimedControls};
use super::local_time::{parse_time_of_day, resolve_local};

/// The day names the `cron` crate reads, indexed by standard cron's day-of-week numbers (0 and 7 are
/// Sunday).
const CRON_DAYS: [&str; 8] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];

/// How a window's end is found.
#[derive(Debug, Clone)]
pub enum WindowRule {
    /// `amount` `unit` after the window opens; `None` when the controls lack either.
    Fixed(Option<TimeSpan>),
    /// The next occurrence of a cron schedule; `expression` is the one shown in the digest metadata.
    Cron { schedule: Box<cron::Schedule>, expression: String },
    /// A day of each month named by an ordinal ("the last weekday", "the 2nd tuesday"), at a time of day.
    MonthlyOrdinal { ordinal: Ordinal, value: OrdinalValue, at: NaiveTime },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ordinal {
    Nth(usize),
    Last,
}

/// Which days an ordinal counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OrdinalValue {
    Day,
    Weekday,
    Weekend,
    Only(Weekday),
}

impl OrdinalValue {
    fn matches(self, date: NaiveDate) -> bool {
        let weekend = matches!(date.weekday(), Weekday::Sat | Weekday::Sun);
        match self {
            Self::Day => true,
            Self::Weekday => !weekend,
            Self::Weekend => weekend,
            Self::Only(day) => date.weekday() == day,
        }
    }
}

impl WindowRule {
    /// The rule of a digest step's controls (`type` timed reads `cron`, else the `timed` object).
    pub fn from_controls(controls: &DigestControls) -> Result<Self, String> {
        if controls.form() != DigestType::Timed {
            return Ok(Self::Fixed(controls.span()));
        }
        if let Some(expression) = &controls.cron {
            let schedule = parse_standard_cron(expression)?;
            return Ok(Self::Cron { schedule: Box::new(schedule), expression: expression.trim().to_string() });
        }
        match &controls.timed {
            Some(timed) => timed_rule(controls, timed),
            None => Err("A timed digest needs a cron expression or a timed schedule".into()),
        }
    }

    /// The end of a window opened at `now`, in the subscriber's `timezone`.
    pub fn window_end(&self, now: DateTime<Utc>, timezone: Tz) -> Option<DateTime<Utc>> {
        match self {
            Self::Fixed(span) => span.and_then(|span| span.end_after(now, timezone)),
            Self::Cron { schedule, .. } => {
                schedule.after(&now.with_timezone(&timezone)).next().map(|next| next.with_timezone(&Utc))
            }
            Self::MonthlyOrdinal { ordinal, value, at } => {
                let local = now.with_timezone(&timezone).date_naive();
                let first_of_month = local.with_day(1)?;
                (0..=24)
                    .filter_map(|offset| first_of_month.checked_add_months(Months::new(offset)))
                    .filter_map(|month| ordinal_day(month, *ordinal, *value))
                    .map(|day| resolve_local(timezone, day.and_time(*at)))
                    .find(|end| *end > now)
            }
        }
    }

    /// The cron expression shown as `timed.cronExpression`, when the rule is one.
    pub fn cron_expression(&self) -> Option<&str> {
        match self {
            Self::Cron { expression, .. } => Some(expression),
            _ => None,
        }
    }
}

/// A standard 5-field cron expression (minute hour day-of-month month day-of-week, Sunday = 0 or 7), or a
/// 6-field one that starts with seconds, as the `cron` crate's schedule.
pub fn parse_standard_cron(expression: &str) -> Result<cron::Schedule, String> {
    let fields: Vec<&str> = expression.split_whitespace().collect();
    let translated = match fields.as_slice() {
        [minute, hour, day, month, weekday] => {
            format!("0 {minute} {hour} {day} {month} {}", crate_weekdays(weekday)?)
        }
        [second, minute, hour, day, month, weekday] => {
            format!("{second} {minute} {hour} {day} {month} {}", crate_weekdays(weekday)?)
        }
        _ => return Err(format!("cron must have 5 fields (minute hour day month weekday), got `{expression}`")),
    };
    cron::Schedule::from_str(&translated).map_err(|error| format!("cron `{expression}` is invalid: {error}"))
}

/// A day-of-week field in standard numbering as names: the `cron` crate numbers Sunday 1, so numbers
/// are spelled out (`1-5` → `MON,TUE,WED,THU,FRI`); names and wildcards mean the same in both.
fn crate_weekdays(field: &str) -> Result<String, String> {
    let invalid = || format!("day of week `{field}` is invalid");
    let parts = field.split(',').map(|part| {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                (range, Some(step.parse::<usize>().ok().filter(|step| *step > 0).ok_or_else(invalid)?))
            }
            None => (part, None),
        };
        if !range.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok(part.to_string());
        }
        let number = |text: &str| text.parse::<usize>().ok().filter(|day| *day <= 7).ok_or_else(invalid);
        let (start, end) = match range.split_once('-') {
            Some((start, end)) => (number(start)?, number(end)?),
            None if step.is_some() => (number(range)?, 6),
            None => (number(range)?, number(range)?),
        };
        if start > end {
            return Err(invalid());
        }
        let days: Vec<&str> = (start..=end).step_by(step.unwrap_or(1)).map(|day| CRON_DAYS[day]).collect();
        Ok(days.join(","))
    });
    Ok(parts.collect::<Result<Vec<_>, String>>()?.join(","))
}

/// The rule of a `timed` object: every `amount` minutes or hours, every `amount` days at `atTime`, on
/// `weekDays` (weeks), or on `monthDays` / the ordinal day (months).
fn timed_rule(controls: &DigestControls, timed: &TimedControls) -> Result<WindowRule, String> {
    let at = match &timed.at_time {
        Some(text) => parse_time_of_day(text).ok_or_else(|| format!("timed.atTime `{text}` is not a time of day"))?,
        None => NaiveTime::MIN,
    };
    let (hour, minute) = (at.hour(), at.minute());
    let every = controls.amount.filter(|amount| *amount > 1).map_or("*".to_string(), |n| format!("*/{n}"));
    let expression = match controls.unit.unwrap_or(TimeUnit::Days) {
        TimeUnit::Minutes => format!("0 {every} * * * *"),
        TimeUnit::Hours => format!("0 {minute} {every} * * *"),
        TimeUnit::Days => format!("0 {minute} {hour} {every} * *"),
        TimeUnit::Weeks => {
            let days = names(&timed.week_days, |day| {
                Weekday::from_str(day).ok().map(|day| CRON_DAYS[day.num_days_from_sunday() as usize].to_string())
            })?;
            format!("0 {minute} {hour} * * {}", if days.is_empty() { "*".into() } else { days.join(",") })
        }
        TimeUnit::Months if timed.monthly_type.as_deref() == Some("on") => {
            let ordinal = match timed.ordinal.as_deref() {
                Some("last") => Ordinal::Last,
                text => text
                    .and_then(|text| text.parse().ok())
                    .filter(|n| (1..=5).contains(n))
                    .map(Ordinal::Nth)
                    .ok_or("timed.ordinal must be 1 to 5 or last")?,
            };
            let value = match timed.ordinal_value.as_deref().unwrap_or("day") {
                "day" => OrdinalValue::Day,
                "weekday" => OrdinalValue::Weekday,
                "weekend" => OrdinalValue::Weekend,
                day => OrdinalValue::Only(
                    Weekday::from_str(day).map_err(|_| format!("timed.ordinalValue `{day}` is invalid"))?,
                ),
            };
            return Ok(WindowRule::MonthlyOrdinal { ordinal, value, at });
        }
        TimeUnit::Months => {
            let days = names(&timed.month_days, |day| {
                day.parse::<u32>().ok().filter(|day| (1..=31).contains(day)).map(|day| day.to_string())
            })?;
            format!("0 {minute} {hour} {} * *", if days.is_empty() { "1".into() } else { days.join(",") })
        }
        TimeUnit::Seconds => return Err("a timed digest cannot repeat in seconds".into()),
    };
    let schedule =
        cron::Schedule::from_str(&expression).map_err(|error| format!("the timed schedule is invalid: {error}"))?;
    Ok(WindowRule::Cron { schedule: Box::new(schedule), expression })
}

/// The entries of a list, each mapped by `read`; a bad one is an error.
fn names(list: &Option<Vec<String>>, read: impl Fn(&str) -> Option<String>) -> Result<Vec<String>, String> {
    list.iter().flatten().map(|text| read(text).ok_or_else(|| format!("`{text}` is not a valid day"))).collect()
}

/// The `ordinal`th day of `month` (any date in it) that `value` counts.
fn ordinal_day(month: NaiveDate, ordinal: Ordinal, value: OrdinalValue) -> Option<NaiveDate> {
    let mut days =
        month.with_day(1)?.iter_days().take_while(|day| day.month() == month.month()).filter(|day| value.matches(*day));
    match ordinal {
        Ordinal::Nth(n) => days.nth(n - 1),
        Ordinal::Last => days.last(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::controls::read;
    use serde_json::{json, Value};

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    fn end(controls: Value, now: &str, timezone: Tz) -> DateTime<Utc> {
        WindowRule::from_controls(&read(&controls)).unwrap().window_end(at(now), timezone).unwrap()
    }

    #[test]
    fn standard_cron_counts_sunday_as_zero_and_seven() {
        // 2026-11-21 is a Saturday. "1-5" is Monday to Friday: next Monday 09:00.
        let weekdays = json!({"type": "timed", "cron": "0 9 * * 1-5"});
        assert_eq!(end(weekdays, "2026-11-21T12:00:00Z", Tz::UTC), at("2026-11-23T09:00:00Z"));
        // Sunday as 0, 7 or a name; "5-7" is Friday to Sunday, and Saturday's 08:30 has passed.
        for sunday in ["0", "7", "SUN", "5-7"] {
            let controls = json!({"type": "timed", "cron": format!("30 8 * * {sunday}")});
            assert_eq!(end(controls, "2026-11-21T12:00:00Z", Tz::UTC), at("2026-11-22T08:30:00Z"), "{sunday}");
        }
        assert!(parse_standard_cron("0 9 * * 8").is_err());
        assert!(parse_standard_cron("every monday").is_err());
        assert!(parse_standard_cron("0 9 * *").is_err());
    }

    #[test]
    fn cron_runs_in_the_subscribers_timezone_across_dst() {
        // 09:00 in New York: 14:00 UTC in winter (EST), 13:00 UTC after the 8 March 2026 change (EDT).
        let daily = json!({"type": "timed", "cron": "0 9 * * *"});
        assert_eq!(end(daily.clone(), "2026-03-07T15:00:00Z", Tz::America__New_York), at("2026-03-08T13:00:00Z"));
        assert_eq!(end(daily, "2026-03-06T15:00:00Z", Tz::America__New_York), at("2026-03-07T14:00:00Z"));
    }

    #[test]
    fn timed_objects_become_schedules() {
        let now = "2026-11-21T12:00:00Z"; // Saturday
        let weekly = json!({"type": "timed", "unit": "weeks", "timed": {"atTime": "10:30 AM", "weekDays": ["monday", "wednesday"]}});
        assert_eq!(end(weekly, now, Tz::UTC), at("2026-11-23T10:30:00Z"));
        let monthly = json!({"type": "timed", "unit": "months", "timed": {"atTime": "08:00", "monthlyType": "each", "monthDays": ["1", 15]}});
        assert_eq!(end(monthly, now, Tz::UTC), at("2026-12-01T08:00:00Z"));
        let hourly = json!({"type": "timed", "unit": "hours", "amount": 1, "timed": {}});
        assert_eq!(end(hourly, now, Tz::UTC), at("2026-11-21T13:00:00Z"));
        let last_weekday = json!({"type": "timed", "unit": "months", "timed": {"monthlyType": "on", "ordinal": "last", "ordinalValue": "weekday", "atTime": "17:00"}});
        assert_eq!(end(last_weekday, now, Tz::UTC), at("2026-11-30T17:00:00Z"));
        let second_tuesday = json!({"type": "timed", "unit": "months", "timed": {"monthlyType": "on", "ordinal": "2", "ordinalValue": "tuesday"}});
        assert_eq!(end(second_tuesday, now, Tz::UTC), at("2026-12-08T00:00:00Z"));
        let bad_day = json!({"type": "timed", "unit": "weeks", "timed": {"weekDays": ["someday"]}});
        assert!(WindowRule::from_controls(&read(&bad_day)).is_err());
    }

    #[test]
    fn regular_windows_count_from_the_opening_event() {
        let regular = json!({"type": "regular", "amount": 30, "unit": "seconds"});
        assert_eq!(end(regular, "2026-11-21T12:00:00Z", Tz::UTC), at("2026-11-21T12:00:30Z"));
    }
}
