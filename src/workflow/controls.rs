//! Typed step controls, per kind. Control values are stored as the JSON the API sent (validated against
//! the kind's JSON Schema on save, but drafts may leave required ones empty), so every reader goes
//! through these structs: the API side for issues and metadata, the engine to run the step.
//!
//! Reading is lenient, like the JSON it replaces: a control that is absent, `null` or of the wrong
//! type reads as `None`, and unknown controls are ignored. Channel and custom controls are Liquid
//! templates: the engine renders the whole JSON first and reads these structs from the result.

use std::collections::BTreeMap;

use chrono::{DateTime, Months, TimeDelta, Utc};
use chrono_tz::Tz;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::columns::named_enum;
use super::kind::StepKind;
use super::local_time::resolve_local;

named_enum! {
    /// Unit of a delay, digest window or look-back window. Weeks are 7 days; months are calendar months.
    pub enum TimeUnit ("time unit") {
        Seconds = "seconds",
        Minutes = "minutes",
        Hours = "hours",
        Days = "days",
        Weeks = "weeks",
        Months = "months",
    }
}

named_enum! {
    /// How a delay ends: after a fixed time, or at a date read from the payload.
    pub enum DelayType ("delay type") {
        Regular = "regular",
        Scheduled = "scheduled",
    }
}

named_enum! {
    /// How a digest window is made.
    pub enum DigestType ("digest type") {
        Regular = "regular",
        Backoff = "backoff",
        Timed = "timed",
    }
}

/// `amount` `unit`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeSpan {
    pub amount: i64,
    pub unit: TimeUnit,
}

impl TimeSpan {
    /// A span from its optional parts; `None` unless both are there.
    pub fn of(amount: Option<i64>, unit: Option<TimeUnit>) -> Option<Self> {
        Some(Self { amount: amount?, unit: unit? })
    }

    /// A span given as `{amount, unit}` JSON (a trigger's `overrides.delay`).
    pub fn read(value: &Value) -> Option<Self> {
        let parts = PartialSpan::deserialize(value).ok()?;
        Self::of(parts.amount, parts.unit)
    }

    /// `now` plus this span; months are calendar months in `timezone`. `None` for a negative amount or
    /// an end out of range.
    pub fn end_after(self, now: DateTime<Utc>, timezone: Tz) -> Option<DateTime<Utc>> {
        let amount = Some(self.amount).filter(|amount| *amount >= 0)?;
        let seconds = |factor: i64| now.checked_add_signed(TimeDelta::try_seconds(amount.checked_mul(factor)?)?);
        match self.unit {
            TimeUnit::Seconds => seconds(1),
            TimeUnit::Minutes => seconds(60),
            TimeUnit::Hours => seconds(3_600),
            TimeUnit::Days => seconds(86_400),
            TimeUnit::Weeks => seconds(7 * 86_400),
            TimeUnit::Months => {
                let local = now.with_timezone(&timezone).naive_local();
                let shifted = local.checked_add_months(Months::new(u32::try_from(amount).ok()?))?;
                Some(resolve_local(timezone, shifted))
            }
        }
    }
}

/// `{amount, unit}` as sent, either part possibly missing.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PartialSpan {
    #[serde(default, deserialize_with = "whole_number")]
    pub amount: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    pub unit: Option<TimeUnit>,
}

/// The controls of the five channel steps, read after rendering.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelControls {
    #[serde(default, deserialize_with = "lenient")]
    pub subject: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub body: Option<String>,
    /// Email: the sender's name for this step, between the trigger's overrides and the integration's.
    #[serde(default, deserialize_with = "lenient")]
    pub sender_name: Option<String>,
    /// Email: `block` (the body is a block-editor document) or `html`.
    #[serde(default, deserialize_with = "lenient")]
    pub editor_type: Option<String>,
    /// In-app: where a click on the message goes.
    #[serde(default, deserialize_with = "lenient")]
    pub redirect: Option<Redirect>,
    #[serde(default, deserialize_with = "lenient")]
    pub primary_action: Option<Action>,
    #[serde(default, deserialize_with = "lenient")]
    pub secondary_action: Option<Action>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Redirect {
    #[serde(default, deserialize_with = "lenient")]
    pub url: Option<String>,
}

/// An in-app button.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Action {
    #[serde(default, deserialize_with = "lenient")]
    pub label: Option<String>,
}

/// The delay step's controls.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DelayControls {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    pub delay_type: Option<DelayType>,
    #[serde(default, deserialize_with = "whole_number")]
    pub amount: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    pub unit: Option<TimeUnit>,
    /// Scheduled delays: the dotted payload path of the date to wait for.
    #[serde(default, deserialize_with = "lenient")]
    pub delay_path: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub extend_to_schedule: Option<bool>,
}

impl DelayControls {
    pub fn is_scheduled(&self) -> bool {
        self.delay_type == Some(DelayType::Scheduled)
    }

    pub fn span(&self) -> Option<TimeSpan> {
        TimeSpan::of(self.amount, self.unit)
    }
}

/// The digest step's controls.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestControls {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    pub digest_type: Option<DigestType>,
    #[serde(default, deserialize_with = "whole_number")]
    pub amount: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    pub unit: Option<TimeUnit>,
    /// The dotted payload path whose value splits events into separate windows.
    #[serde(default, deserialize_with = "lenient")]
    pub digest_key: Option<String>,
    /// Backoff: how far back an earlier event of the key makes this one wait.
    #[serde(default, deserialize_with = "lenient")]
    pub look_back_window: Option<PartialSpan>,
    /// The older spelling of a backoff digest: `backoff: true` with `backoffAmount`/`backoffUnit`.
    #[serde(default, deserialize_with = "lenient")]
    pub backoff: Option<bool>,
    #[serde(default, deserialize_with = "whole_number")]
    pub backoff_amount: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    pub backoff_unit: Option<TimeUnit>,
    /// Timed: a standard 5-field cron expression.
    #[serde(default, deserialize_with = "lenient")]
    pub cron: Option<String>,
    /// Timed: the schedule in parts, the alternative to `cron`.
    #[serde(default, deserialize_with = "lenient")]
    pub timed: Option<TimedControls>,
    #[serde(default, deserialize_with = "lenient")]
    pub extend_to_schedule: Option<bool>,
}

impl DigestControls {
    /// The window's form: `backoff: true` makes a backoff digest whatever its `type`.
    pub fn form(&self) -> DigestType {
        match self.digest_type {
            _ if self.backoff == Some(true) => DigestType::Backoff,
            Some(form) => form,
            None => DigestType::Regular,
        }
    }

    pub fn span(&self) -> Option<TimeSpan> {
        TimeSpan::of(self.amount, self.unit)
    }

    /// The backoff look-back window: `lookBackWindow`, or the older `backoffAmount`/`backoffUnit` pair.
    pub fn look_back(&self) -> Option<PartialSpan> {
        self.look_back_window
            .clone()
            .or_else(|| self.backoff_amount.map(|amount| PartialSpan { amount: Some(amount), unit: self.backoff_unit }))
    }

    /// The cron expression, when it is not blank.
    pub fn cron(&self) -> Option<&str> {
        self.cron.as_deref().filter(|cron| !cron.trim().is_empty())
    }

    /// The digest key path, trimmed; `None` when blank.
    pub fn key_path(&self) -> Option<&str> {
        self.digest_key.as_deref().map(str::trim).filter(|path| !path.is_empty())
    }
}

/// A timed digest's schedule in parts (see `window`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimedControls {
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub at_time: Option<String>,
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub week_days: Option<Vec<String>>,
    /// Days of the month, sent as strings or numbers.
    #[serde(default, deserialize_with = "texts", skip_serializing_if = "Option::is_none")]
    pub month_days: Option<Vec<String>>,
    /// `1`..`5` or `last`.
    #[serde(default, deserialize_with = "text", skip_serializing_if = "Option::is_none")]
    pub ordinal: Option<String>,
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub ordinal_value: Option<String>,
    /// `each` (the listed month days) or `on` (the ordinal day).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub monthly_type: Option<String>,
}

/// The custom step's controls, read after rendering.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct CustomControls {
    #[serde(default, deserialize_with = "lenient")]
    pub url: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub headers: Option<BTreeMap<String, String>>,
}

/// A step's controls, typed by its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum StepControls {
    Channel(ChannelControls),
    Delay(DelayControls),
    Digest(DigestControls),
    Custom(CustomControls),
}

impl StepControls {
    /// Reads `values` (the stored JSON) as the controls of `kind`; anything but an object reads as
    /// no controls at all.
    pub fn read(kind: StepKind, values: &Value) -> Self {
        match kind {
            StepKind::InApp | StepKind::Email | StepKind::Sms | StepKind::Chat | StepKind::Push => {
                Self::Channel(read(values))
            }
            StepKind::Delay => Self::Delay(read(values)),
            StepKind::Digest => Self::Digest(read(values)),
            StepKind::Custom => Self::Custom(read(values)),
        }
    }

    /// Whether a delay or digest waits for the subscriber's schedule.
    pub fn extends_to_schedule(&self) -> bool {
        match self {
            Self::Delay(delay) => delay.extend_to_schedule == Some(true),
            Self::Digest(digest) => digest.extend_to_schedule == Some(true),
            Self::Channel(_) | Self::Custom(_) => false,
        }
    }
}

/// The required controls of a `kind` step left empty (absent, `null` or blank text), by API name.
/// Drafts may be saved with them: they are MISSING_VALUE issues, not errors.
pub fn missing_controls(kind: StepKind, values: &Value) -> Vec<&'static str> {
    let blank = |text: &Option<String>| text.as_deref().is_none_or(|text| text.trim().is_empty());
    let mut missing = Vec::new();
    let mut require = |name: &'static str, absent: bool| {
        if absent {
            missing.push(name);
        }
    };
    match StepControls::read(kind, values) {
        StepControls::Channel(channel) => match kind {
            // One of subject and body is enough; both empty: both are reported.
            StepKind::InApp => {
                let neither = blank(&channel.subject) && blank(&channel.body);
                require("body", neither);
                require("subject", neither);
            }
            StepKind::Email | StepKind::Push => {
                require("subject", blank(&channel.subject));
                require("body", blank(&channel.body));
            }
            _ => require("body", blank(&channel.body)),
        },
        StepControls::Delay(delay) if delay.is_scheduled() => require("delayPath", blank(&delay.delay_path)),
        StepControls::Delay(delay) => {
            require("type", delay.delay_type.is_none());
            require("amount", delay.amount.is_none());
            require("unit", delay.unit.is_none());
        }
        StepControls::Digest(digest) => match digest.digest_type {
            // A cron expression or the `timed` object.
            Some(DigestType::Timed) => require("cron", digest.timed.is_none() && blank(&digest.cron)),
            form => {
                require("amount", digest.amount.is_none());
                require("unit", digest.unit.is_none());
                if form == Some(DigestType::Backoff) {
                    // A back-off window needs both its parts.
                    let window = digest.look_back_window.unwrap_or_default();
                    require("lookBackWindow", window.amount.is_none() || window.unit.is_none());
                }
            }
        },
        StepControls::Custom(custom) => require("url", blank(&custom.url)),
    }
    missing
}

/// Reads a controls struct from JSON: lenient field by field, so it fails only for a non-object,
/// which reads as no controls.
pub fn read<T: DeserializeOwned + Default>(values: &Value) -> T {
    T::deserialize(values).unwrap_or_default()
}

/// A value of the wrong type reads as absent.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(deserializer: D) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).ok())
}

/// A whole number, also when sent as `5.0`.
fn whole_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(value.as_i64().or_else(|| value.as_f64().filter(|float| float.fract() == 0.0).map(|float| float as i64)))
}

/// Text, also when sent as a number.
fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(as_text(&Value::deserialize(deserializer)?))
}

/// A list of texts or numbers, as texts.
fn texts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(value.as_array().map(|items| items.iter().filter_map(as_text).collect()))
}

fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn controls_of_the_wrong_type_read_as_absent() {
        let delay: DelayControls =
            read(&json!({"type": "scheduled", "amount": "abc", "unit": "fortnights", "delayPath": 3}));
        assert_eq!(delay, DelayControls { delay_type: Some(DelayType::Scheduled), ..Default::default() });
        let digest: DigestControls =
            read(&json!({"amount": 5.0, "unit": "hours", "timed": {"monthDays": ["1", 15], "ordinal": 2}}));
        assert_eq!(digest.span(), Some(TimeSpan { amount: 5, unit: TimeUnit::Hours }));
        let timed = digest.timed.unwrap();
        assert_eq!(timed.month_days, Some(vec!["1".to_string(), "15".to_string()]));
        assert_eq!(timed.ordinal.as_deref(), Some("2"));
        assert_eq!(read::<ChannelControls>(&json!("not an object")), ChannelControls::default());
    }

    #[test]
    fn backoff_is_the_type_or_the_older_flag_with_its_own_window() {
        let older: DigestControls = read(&json!({"backoff": true, "backoffAmount": 2, "backoffUnit": "minutes"}));
        assert_eq!(older.form(), DigestType::Backoff);
        assert_eq!(older.look_back(), Some(PartialSpan { amount: Some(2), unit: Some(TimeUnit::Minutes) }));
        let newer: DigestControls = read(&json!({"type": "backoff", "lookBackWindow": {"amount": 1, "unit": "hours"}}));
        assert_eq!(
            newer.look_back().and_then(|span| TimeSpan::of(span.amount, span.unit)).map(|span| span.unit),
            Some(TimeUnit::Hours)
        );
        assert_eq!(read::<DigestControls>(&json!({})).form(), DigestType::Regular);
    }

    #[test]
    fn every_unit_counts_as_documented() {
        let now = at("2026-01-31T10:00:00Z");
        let cases = [
            (TimeUnit::Seconds, 30, "2026-01-31T10:00:30Z"),
            (TimeUnit::Minutes, 5, "2026-01-31T10:05:00Z"),
            (TimeUnit::Hours, 2, "2026-01-31T12:00:00Z"),
            (TimeUnit::Days, 1, "2026-02-01T10:00:00Z"),
            (TimeUnit::Weeks, 2, "2026-02-14T10:00:00Z"),
            (TimeUnit::Months, 1, "2026-02-28T10:00:00Z"),
        ];
        for (unit, amount, expected) in cases {
            assert_eq!(TimeSpan { amount, unit }.end_after(now, Tz::UTC), Some(at(expected)), "{amount} {unit}");
        }
        assert_eq!(TimeSpan { amount: -1, unit: TimeUnit::Days }.end_after(now, Tz::UTC), None);
        assert_eq!(TimeSpan::read(&json!({"amount": 1, "unit": "fortnights"})), None);
        assert_eq!(
            TimeSpan::read(&json!({"amount": 3, "unit": "days"})),
            Some(TimeSpan { amount: 3, unit: TimeUnit::Days })
        );
    }

    #[test]
    fn months_are_calendar_months_in_the_subscribers_timezone_across_dst() {
        use chrono::TimeZone;
        // 09:00 in New York on 1 March (EST, UTC-5) → 09:00 on 1 April (EDT, UTC-4).
        let now = Tz::America__New_York.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap().with_timezone(&Utc);
        let end = TimeSpan { amount: 1, unit: TimeUnit::Months }.end_after(now, Tz::America__New_York).unwrap();
        assert_eq!(end, at("2026-04-01T13:00:00Z"));
    }
}
