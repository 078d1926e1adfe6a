//! Step filters ("conditions"): decide whether a workflow step runs for one subscriber and trigger payload.
//!
//! Filters are stored (in `workflow_steps.filters` and `integrations.conditions`) in the API JSON shape, so the
//! types here deserialize that JSON directly. Evaluation is pure: the engine passes the subscriber (API JSON
//! field names such as `firstName`, `data.plan`) and the trigger payload, and gets back whether the step passes
//! plus a human-readable reason for its execution detail.
//!
//! # Semantics
//!
//! * No filters: the step passes. Otherwise the step passes when **any** filter passes.
//! * A filter combines its children with AND (all) or OR (any); no children means it matches. `isNegated`
//!   inverts the combined result. The filter `type` is the builder's UI hint and does not change evaluation.
//! * `field` is a dotted path into the subscriber or the payload; numeric segments index arrays
//!   (`items.0.sku`). A field that is missing or JSON `null` makes every positive comparison false, and each
//!   negative operator (`NOT_EQUAL`, `NOT_IN`, `NOT_LIKE`, `NOT_BETWEEN`) is the exact complement of its
//!   positive counterpart, so it is true. The reasoning: "the field is not X" is true of an absent field.
//! * `EQUAL`: booleans when the field is a boolean and the value is `true`/`false`; numbers when both sides
//!   parse as finite numbers (`"7"` equals `7.0`); otherwise case-sensitive string equality. Arrays and
//!   objects never equal anything.
//! * `LARGER`, `SMALLER`, `LARGER_EQUAL`, `SMALLER_EQUAL`: numbers when both sides parse as numbers, else
//!   instants when both parse as dates (RFC 3339 timestamps, `YYYY-MM-DD` at midnight UTC, or a timestamp
//!   without offset taken as UTC); anything else is false.
//! * `BETWEEN`: value `a,b`, inclusive, bounds in either order, compared like `LARGER_EQUAL`/`SMALLER_EQUAL`.
//! * `LIKE`: case-insensitive substring ("contains", as the reference service's condition builder does);
//!   `%` and `_` are literal characters, not wildcards. On an array field, any element may contain it.
//! * Lists (`IN`, `NOT_IN`, `ANY_IN`, `ALL_IN`) are a JSON array string (`["a","b"]`) or comma-separated
//!   text (`a, b`; items trimmed, empty items dropped). Items compare like `EQUAL`. A scalar field counts as
//!   a one-element array, so these operators also work on single-valued fields:
//!   * `IN` / `ANY_IN`: some element of the field is in the list (the reference service's `IN`, "the field
//!     includes the value", is the one-item-list case);
//!   * `NOT_IN`: no element of the field is in the list;
//!   * `ALL_IN`: every list item is in the field (an empty list is vacuously satisfied).

use std::borrow::Cow;
use std::cmp::Ordering;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::sql_types::Jsonb;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::columns::jsonb_column;

/// Longest rendering of a field's value kept in a reason, so execution details stay small.
const MAX_VALUE_PREVIEW: usize = 100;

/// One step filter as stored and sent over the API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepFilter {
    /// Inverts the result of the filter.
    pub is_negated: bool,
    /// The builder's field type; informational only.
    #[serde(rename = "type")]
    pub type_: FilterType,
    /// How the children are combined.
    pub value: Combinator,
    /// The comparisons of the filter (may be empty).
    pub children: Vec<FilterCondition>,
}

/// One comparison of a step filter (`FieldFilterPart` in the spec).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterCondition {
    /// Dotted path relative to `on`.
    pub field: String,
    /// The value compared with the field (lists and ranges are comma separated).
    pub value: String,
    /// The comparison.
    pub operator: Operator,
    /// Where the field is read from.
    pub on: FilterOn,
}

/// The builder field type of a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FilterType {
    Boolean,
    Text,
    Date,
    Number,
    Statement,
    List,
    MultiList,
    Group,
}

/// How a filter combines its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Combinator {
    And,
    Or,
}

/// Comparison operator of a condition; see the module docs for the exact semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Operator {
    Larger,
    Smaller,
    LargerEqual,
    SmallerEqual,
    Equal,
    NotEqual,
    AllIn,
    AnyIn,
    NotIn,
    Between,
    NotBetween,
    Like,
    NotLike,
    In,
}

impl Operator {
    /// The API name, used in reasons so they read like the stored filter.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Larger => "LARGER",
            Self::Smaller => "SMALLER",
            Self::LargerEqual => "LARGER_EQUAL",
            Self::SmallerEqual => "SMALLER_EQUAL",
            Self::Equal => "EQUAL",
            Self::NotEqual => "NOT_EQUAL",
            Self::AllIn => "ALL_IN",
            Self::AnyIn => "ANY_IN",
            Self::NotIn => "NOT_IN",
            Self::Between => "BETWEEN",
            Self::NotBetween => "NOT_BETWEEN",
            Self::Like => "LIKE",
            Self::NotLike => "NOT_LIKE",
            Self::In => "IN",
        }
    }
}

/// Which document a condition's field is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterOn {
    Subscriber,
    Payload,
}

impl FilterOn {
    /// The API name, used as the path prefix in reasons (`payload.amount`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Subscriber => "subscriber",
            Self::Payload => "payload",
        }
    }
}

/// A step's filters as `workflow_steps.filters` stores them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, AsExpression, FromSqlRow)]
#[diesel(sql_type = Jsonb)]
#[serde(transparent)]
pub struct StepFilters(pub Vec<StepFilter>);
jsonb_column!(StepFilters);

/// Parses a stored filter array, reporting where an invalid entry is (`[0].children[1].operator: unknown
/// variant ...`) so the caller can surface it instead of silently skipping the step.
pub fn parse_filters(json: &Value) -> Result<Vec<StepFilter>, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(json)
}

/// The documents a step's conditions are evaluated against.
#[derive(Debug, Clone, Copy)]
pub struct FilterContext<'a> {
    /// The subscriber in its API JSON shape (`firstName`, `email`, `data`, ...).
    pub subscriber: &'a Value,
    /// The trigger payload.
    pub payload: &'a Value,
}

impl FilterContext<'_> {
    fn root(&self, on: FilterOn) -> &Value {
        match on {
            FilterOn::Subscriber => self.subscriber,
            FilterOn::Payload => self.payload,
        }
    }
}

/// Whether a step passes its filters, and why (for the execution detail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterOutcome {
    pub passed: bool,
    /// E.g. `filter 1: payload.amount LARGER 100 was false (value 50)`; failing filters are joined with `; `.
    pub reason: String,
}

/// Evaluates a step's filters: passes when there are none or when any filter passes.
pub fn step_passes(filters: &[StepFilter], context: &FilterContext) -> FilterOutcome {
    if filters.is_empty() {
        return FilterOutcome { passed: true, reason: "no filters".to_owned() };
    }
    let mut failures = Vec::with_capacity(filters.len());
    for (index, filter) in filters.iter().enumerate() {
        let label = filter_label(index, filter);
        let (passed, explanation) = evaluate_filter(filter, context);
        if passed {
            return FilterOutcome { passed: true, reason: format!("{label} passed: {explanation}") };
        }
        failures.push(format!("{label}: {explanation}"));
    }
    FilterOutcome { passed: false, reason: failures.join("; ") }
}

/// `filter N` (1-based, as a person counts them in the UI), marked when negated so the reason makes sense.
fn filter_label(index: usize, filter: &StepFilter) -> String {
    let negated = if filter.is_negated { " (negated)" } else { "" };
    format!("filter {}{negated}", index + 1)
}

/// The outcome of one condition and its description for the reason.
struct ConditionResult {
    passed: bool,
    description: String,
}

/// Evaluates one filter, returning whether it passes and which conditions decided it.
fn evaluate_filter(filter: &StepFilter, context: &FilterContext) -> (bool, String) {
    let results: Vec<ConditionResult> = filter.children.iter().map(|c| evaluate_condition(c, context)).collect();
    // An empty filter matches for either combinator (a plain `any` over nothing would say no).
    let matched = results.is_empty()
        || match filter.value {
            Combinator::And => results.iter().all(|r| r.passed),
            Combinator::Or => results.iter().any(|r| r.passed),
        };
    (matched != filter.is_negated, explain(&results, matched))
}

/// Names the conditions whose result equals the combined result: for a false AND the failing ones, for a
/// false OR all of them, for a true OR the passing ones, for a true AND all of them.
fn explain(results: &[ConditionResult], matched: bool) -> String {
    if results.is_empty() {
        return "no conditions (always matches)".to_owned();
    }
    let deciding: Vec<&str> = results.iter().filter(|r| r.passed == matched).map(|r| r.description.as_str()).collect();
    deciding.join(", ")
}

fn evaluate_condition(condition: &FilterCondition, context: &FilterContext) -> ConditionResult {
    let actual = lookup(context.root(condition.on), &condition.field);
    let passed = apply(condition.operator, actual, &condition.value);
    let shown = actual.map_or_else(|| "field missing".to_owned(), |v| format!("value {}", preview(v)));
    let description = format!(
        "{}.{} {} {} was {passed} ({shown})",
        condition.on.as_str(),
        condition.field,
        condition.operator.as_str(),
        condition.value
    );
    ConditionResult { passed, description }
}

/// Follows a dotted path; numeric segments index arrays. `null` counts as missing so that "not set" and
/// "set to null" behave the same.
fn lookup<'v>(root: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(root, |node, segment| match node {
            Value::Object(map) => map.get(segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        })
        .filter(|v| !v.is_null())
}

/// Applies an operator to a field value (`None` when missing); negative operators are complements.
fn apply(operator: Operator, actual: Option<&Value>, expected: &str) -> bool {
    let Some(actual) = actual else {
        return is_negative(operator);
    };
    match operator {
        Operator::Equal => equals(actual, expected),
        Operator::Larger => compare(actual, expected).is_some_and(Ordering::is_gt),
        Operator::Smaller => compare(actual, expected).is_some_and(Ordering::is_lt),
        Operator::LargerEqual => compare(actual, expected).is_some_and(Ordering::is_ge),
        Operator::SmallerEqual => compare(actual, expected).is_some_and(Ordering::is_le),
        Operator::Between => between(actual, expected),
        Operator::Like => contains_text(actual, expected),
        Operator::In | Operator::AnyIn => any_in(actual, &parse_list(expected)),
        Operator::AllIn => all_in(actual, &parse_list(expected)),
        Operator::NotEqual => !equals(actual, expected),
        Operator::NotBetween => !between(actual, expected),
        Operator::NotLike => !contains_text(actual, expected),
        Operator::NotIn => !any_in(actual, &parse_list(expected)),
    }
}

fn is_negative(operator: Operator) -> bool {
    matches!(operator, Operator::NotEqual | Operator::NotIn | Operator::NotLike | Operator::NotBetween)
}

/// Typed equality: booleans, then numbers, then case-sensitive text.
fn equals(actual: &Value, expected: &str) -> bool {
    if let (Value::Bool(b), Ok(e)) = (actual, expected.parse::<bool>()) {
        return *b == e;
    }
    if let (Some(a), Some(e)) = (number_of(actual), parse_number(expected)) {
        return a == e;
    }
    text_of(actual).is_some_and(|t| t == expected)
}

/// Orders the field against a value as numbers, else as instants; `None` when neither applies.
fn compare(actual: &Value, expected: &str) -> Option<Ordering> {
    if let (Some(a), Some(e)) = (number_of(actual), parse_number(expected)) {
        return a.partial_cmp(&e);
    }
    let a = actual.as_str().and_then(parse_instant)?;
    Some(a.cmp(&parse_instant(expected)?))
}

/// Inclusive range `a,b`, bounds in either order; false when the range or the field is not comparable.
fn between(actual: &Value, range: &str) -> bool {
    let Some((first, second)) = range.split_once(',') else {
        return false;
    };
    let (Some(to_first), Some(to_second)) = (compare(actual, first), compare(actual, second)) else {
        return false;
    };
    (to_first.is_ge() && to_second.is_le()) || (to_first.is_le() && to_second.is_ge())
}

/// Case-insensitive substring match on the field's text, or on any element of an array field.
fn contains_text(actual: &Value, needle: &str) -> bool {
    let needle = needle.to_lowercase();
    elements(actual).into_iter().any(|e| text_of(e).is_some_and(|t| t.to_lowercase().contains(&needle)))
}

/// Some element of the field equals some list item.
fn any_in(actual: &Value, list: &[String]) -> bool {
    elements(actual).into_iter().any(|e| list.iter().any(|item| equals(e, item)))
}

/// Every list item equals some element of the field.
fn all_in(actual: &Value, list: &[String]) -> bool {
    let elements = elements(actual);
    list.iter().all(|item| elements.iter().any(|e| equals(e, item)))
}

/// An array's elements, or the value itself as a one-element array.
fn elements(actual: &Value) -> Vec<&Value> {
    match actual {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// A list value: a JSON array string, else comma-separated items (trimmed, empty items dropped).
fn parse_list(value: &str) -> Vec<String> {
    let trimmed = value.trim();
    if trimmed.starts_with('[') {
        if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(trimmed) {
            return items.iter().filter_map(|v| text_of(v).map(Cow::into_owned)).collect();
        }
    }
    trimmed.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// The text of a scalar (strings as-is, numbers and booleans printed); arrays and objects have none.
fn text_of(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Owned(b.to_string())),
        _ => None,
    }
}

/// A JSON number, or a string holding one (payloads often carry numbers as strings).
fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_number(s),
        _ => None,
    }
}

/// Finite numbers only: Rust would otherwise accept `inf` and `NaN` as numbers.
fn parse_number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// RFC 3339 timestamps, bare dates (midnight UTC) and offset-less timestamps (UTC).
fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.with_timezone(&Utc));
    }
    if let Ok(at) = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(at.and_utc());
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)).map(|at| at.and_utc())
}

/// Compact JSON of a field's value, shortened for the reason.
fn preview(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(MAX_VALUE_PREVIEW) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests;
