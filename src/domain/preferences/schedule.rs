//! A subscriber's weekly delivery schedule: is an instant inside it (in the subscriber's timezone,
//! wall-clock time, so DST changes need no special case), and when does the next open slot start.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::domain::validation::Validator;
use crate::workflow::local_time::{parse_time_of_day, resolve_local};

/// The weekly schedule. Disabled: always open. Enabled: open only in the listed hours of enabled days.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    pub is_enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekly_schedule: Option<WeeklySchedule>,
}

/// Open hours per day of the week; an absent day is closed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WeeklySchedule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monday: Option<DaySchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuesday: Option<DaySchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wednesday: Option<DaySchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thursday: Option<DaySchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friday: Option<DaySchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturday: Option<DaySchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sunday: Option<DaySchedule>,
}

/// One day: enabled with no hours means open all day.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaySchedule {
    pub is_enabled: bool,
    #[serde(default)]
    pub hours: Vec<TimeRange>,
}

/// A range of the day in 12-hour form (`09:00 AM`); `start` >= `end` crosses midnight.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeRange {
    pub start: String,
    pub end: String,
}

const DAYS: [(Weekday, &str); 7] = [
    (Weekday::Mon, "monday"),
    (Weekday::Tue, "tuesday"),
    (Weekday::Wed, "wednesday"),
    (Weekday::Thu, "thursday"),
    (Weekday::Fri, "friday"),
    (Weekday::Sat, "saturday"),
    (Weekday::Sun, "sunday"),
];

impl WeeklySchedule {
    fn day(&self, weekday: Weekday) -> Option<&DaySchedule> {
        match weekday {
            Weekday::Mon => self.monday.as_ref(),
            Weekday::Tue => self.tuesday.as_ref(),
            Weekday::Wed => self.wednesday.as_ref(),
            Weekday::Thu => self.thursday.as_ref(),
            Weekday::Fri => self.friday.as_ref(),
            Weekday::Sat => self.saturday.as_ref(),
            Weekday::Sun => self.sunday.as_ref(),
        }
    }

    fn day_mut(&mut self, weekday: Weekday) -> Option<&mut DaySchedule> {
        match weekday {
            Weekday::Mon => self.monday.as_mut(),
            Weekday::Tue => self.tuesday.as_mut(),
            Weekday::Wed => self.wednesday.as_mut(),
            Weekday::Thu => self.thursday.as_mut(),
            Weekday::Fri => self.friday.as_mut(),
            Weekday::Sat => self.saturday.as_mut(),
            Weekday::Sun => self.sunday.as_mut(),
        }
    }
}

/// The contract's 12-hour form: `09:00 AM`.
pub fn format_time_of_day(time: NaiveTime) -> String {
    time.format("%I:%M %p").to_string()
}

impl Schedule {
    /// Checks every time of day (reporting each bad one under `path`) and rewrites them in 12-hour form.
    pub fn normalized(mut self, validator: &mut Validator, path: &str) -> Self {
        if let Some(week) = self.weekly_schedule.as_mut() {
            for (weekday, name) in DAYS {
                let Some(day) = week.day_mut(weekday) else { continue };
                for (index, range) in day.hours.iter_mut().enumerate() {
                    for (field, text) in [("start", &mut range.start), ("end", &mut range.end)] {
                        match parse_time_of_day(text) {
                            Some(time) => *text = format_time_of_day(time),
                            None => validator.reject(
                                &format!("{path}.weeklySchedule.{name}.hours[{index}].{field}"),
                                "must be a time of day such as 09:00 AM or 21:30",
                                text.as_str(),
                            ),
                        }
                    }
                }
            }
        }
        self
    }

    /// Whether `instant` falls inside the schedule, read in `timezone`.
    pub fn is_open_at(&self, instant: DateTime<Utc>, timezone: Tz) -> bool {
        let Some(week) = self.active_week() else { return true };
        let local = instant.with_timezone(&timezone).naive_local();
        let (date, time) = (local.date(), local.time());
        let today = week.day(date.weekday()).filter(|day| day.is_enabled);
        let open_today = today.is_some_and(|day| {
            day.hours.is_empty()
                || ranges(day).any(|(start, end)| if start < end { start <= time && time < end } else { time >= start })
        });
        let yesterday = date.pred_opt().and_then(|previous| week.day(previous.weekday())).filter(|day| day.is_enabled);
        let open_from_yesterday =
            yesterday.is_some_and(|day| ranges(day).any(|(start, end)| start >= end && time < end));
        open_today || open_from_yesterday
    }

    /// The first instant at or after `instant` inside the schedule; `None` when it never opens.
    pub fn next_open_at(&self, instant: DateTime<Utc>, timezone: Tz) -> Option<DateTime<Utc>> {
        if self.is_open_at(instant, timezone) {
            return Some(instant);
        }
        let week = self.active_week()?;
        let today = instant.with_timezone(&timezone).date_naive();
        (0..=7)
            .filter_map(|offset| today.checked_add_signed(Duration::days(offset)))
            .flat_map(|date| opening_times(week, date))
            .map(|local| resolve_local(timezone, local))
            .filter(|candidate| *candidate > instant)
            .min()
    }

    fn active_week(&self) -> Option<&WeeklySchedule> {
        if !self.is_enabled {
            return None;
        }
        static CLOSED: WeeklySchedule = WeeklySchedule {
            monday: None,
            tuesday: None,
            wednesday: None,
            thursday: None,
            friday: None,
            saturday: None,
            sunday: None,
        };
        Some(self.weekly_schedule.as_ref().unwrap_or(&CLOSED))
    }
}

fn ranges(day: &DaySchedule) -> impl Iterator<Item = (NaiveTime, NaiveTime)> + '_ {
    day.hours.iter().filter_map(|range| Some((parse_time_of_day(&range.start)?, parse_time_of_day(&range.end)?)))
}

/// Local times at which the schedule opens on `date`.
fn opening_times(week: &WeeklySchedule, date: NaiveDate) -> Vec<NaiveDateTime> {
    match week.day(date.weekday()).filter(|day| day.is_enabled) {
        Some(day) if day.hours.is_empty() => vec![date.and_time(NaiveTime::MIN)],
        Some(day) => ranges(day).map(|(start, _)| date.and_time(start)).collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine_to_five_weekdays() -> Schedule {
        let day = || {
            Some(DaySchedule {
                is_enabled: true,
                hours: vec![TimeRange { start: "09:00 AM".into(), end: "05:00 PM".into() }],
            })
        };
        Schedule {
            is_enabled: true,
            weekly_schedule: Some(WeeklySchedule {
                monday: day(),
                tuesday: day(),
                wednesday: day(),
                thursday: day(),
                friday: day(),
                saturday: None,
                sunday: Some(DaySchedule { is_enabled: false, hours: vec![] }),
            }),
        }
    }

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn times_read_in_both_forms_and_write_in_12_hour_form() {
        let cases = [
            ("09:00 AM", "09:00 AM"),
            ("9:05 pm", "09:05 PM"),
            ("12:00 AM", "12:00 AM"),
            ("12:30 PM", "12:30 PM"),
            ("21:30", "09:30 PM"),
            ("00:15", "12:15 AM"),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_time_of_day(input).map(format_time_of_day).as_deref(), Some(expected), "{input}");
        }
        for invalid in ["", "25:00", "13:00 PM", "00:00 AM", "9", "09:60", "nine", "09:000"] {
            assert_eq!(parse_time_of_day(invalid), None, "{invalid}");
        }
    }

    #[test]
    fn normalizing_reports_every_bad_time_with_its_path() {
        let mut schedule = nine_to_five_weekdays();
        schedule.weekly_schedule.as_mut().unwrap().monday.as_mut().unwrap().hours[0].start = "9h".into();
        schedule.weekly_schedule.as_mut().unwrap().friday.as_mut().unwrap().hours[0].end = "17:00".into();
        let mut validator = Validator::new();
        let normalized = schedule.normalized(&mut validator, "schedule");
        assert_eq!(normalized.weekly_schedule.unwrap().friday.unwrap().hours[0].end, "05:00 PM");
        let Err(crate::error::AppError::Validation(errors)) = validator.finish() else { panic!("expected a 422") };
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, "schedule.weeklySchedule.monday.hours[0].start");
    }

    #[test]
    fn open_hours_are_read_in_the_subscribers_timezone() {
        let schedule = nine_to_five_weekdays();
        let paris: Tz = "Europe/Paris".parse().unwrap();
        // Wednesday 2026-11-18, 08:30 UTC = 09:30 in Paris (UTC+1).
        assert!(schedule.is_open_at(utc("2026-11-18T08:30:00Z"), paris));
        assert!(!schedule.is_open_at(utc("2026-11-18T08:30:00Z"), chrono_tz::America::New_York));
        // 16:30 UTC = 17:30 Paris: closed; the end is exclusive.
        assert!(!schedule.is_open_at(utc("2026-11-18T16:30:00Z"), paris));
        assert!(!schedule.is_open_at(utc("2026-11-18T16:00:00Z"), paris));
        // Saturday is absent, Sunday disabled.
        assert!(!schedule.is_open_at(utc("2026-11-21T10:00:00Z"), paris));
        assert!(!schedule.is_open_at(utc("2026-11-22T10:00:00Z"), paris));
    }

    #[test]
    fn a_disabled_schedule_is_always_open_and_an_enabled_empty_one_never() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        let now = utc("2026-11-21T03:00:00Z");
        assert!(Schedule { is_enabled: false, weekly_schedule: None }.is_open_at(now, paris));
        let closed = Schedule { is_enabled: true, weekly_schedule: None };
        assert!(!closed.is_open_at(now, paris));
        assert_eq!(closed.next_open_at(now, paris), None);
    }

    #[test]
    fn ranges_across_midnight_cover_the_next_morning() {
        let night = Schedule {
            is_enabled: true,
            weekly_schedule: Some(WeeklySchedule {
                friday: Some(DaySchedule {
                    is_enabled: true,
                    hours: vec![TimeRange { start: "10:00 PM".into(), end: "02:00 AM".into() }],
                }),
                ..Default::default()
            }),
        };
        let utc_tz = chrono_tz::UTC;
        assert!(night.is_open_at(utc("2026-11-20T23:00:00Z"), utc_tz)); // Friday 23:00
        assert!(night.is_open_at(utc("2026-11-21T01:59:00Z"), utc_tz)); // Saturday 01:59, Friday's range
        assert!(!night.is_open_at(utc("2026-11-21T02:00:00Z"), utc_tz));
        assert!(!night.is_open_at(utc("2026-11-20T21:59:00Z"), utc_tz));
    }

    #[test]
    fn the_next_open_slot_skips_closed_days() {
        let schedule = nine_to_five_weekdays();
        let paris: Tz = "Europe/Paris".parse().unwrap();
        // Saturday 2026-11-21 12:00 UTC → Monday 09:00 Paris = 08:00 UTC.
        assert_eq!(schedule.next_open_at(utc("2026-11-21T12:00:00Z"), paris), Some(utc("2026-11-23T08:00:00Z")));
        // Already open: now.
        assert_eq!(schedule.next_open_at(utc("2026-11-23T10:00:00Z"), paris), Some(utc("2026-11-23T10:00:00Z")));
        // Wednesday evening → Thursday morning.
        assert_eq!(schedule.next_open_at(utc("2026-11-18T18:00:00Z"), paris), Some(utc("2026-11-19T08:00:00Z")));
    }

    #[test]
    fn daylight_saving_changes_keep_wall_clock_hours() {
        let schedule = nine_to_five_weekdays();
        let paris: Tz = "Europe/Paris".parse().unwrap();
        // Paris moves to UTC+2 on Sunday 2026-03-29: Monday 09:00 local is 07:00 UTC.
        assert_eq!(schedule.next_open_at(utc("2026-03-28T12:00:00Z"), paris), Some(utc("2026-03-30T07:00:00Z")));
        assert!(schedule.is_open_at(utc("2026-03-30T07:00:00Z"), paris));
        assert!(!schedule.is_open_at(utc("2026-03-30T06:59:00Z"), paris));
    }

    #[test]
    fn an_opening_inside_a_spring_forward_gap_moves_after_it() {
        let early = Schedule {
            is_enabled: true,
            weekly_schedule: Some(WeeklySchedule {
                sunday: Some(DaySchedule {
                    is_enabled: true,
                    hours: vec![TimeRange { start: "02:30 AM".into(), end: "04:00 AM".into() }],
                }),
                ..Default::default()
            }),
        };
        let paris: Tz = "Europe/Paris".parse().unwrap();
        // 02:30 does not exist in Paris on 2026-03-29; the slot opens at 03:00 local = 01:00 UTC.
        assert_eq!(early.next_open_at(utc("2026-03-28T12:00:00Z"), paris), Some(utc("2026-03-29T01:00:00Z")));
    }
}
