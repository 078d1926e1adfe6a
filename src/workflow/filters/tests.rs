//! Table tests of step filter evaluation.

use serde_json::json;

use super::*;

fn subscriber() -> Value {
    json!({
        "subscriberId": "sub-1",
        "firstName": "Ada",
        "lastName": "Lovelace",
        "email": "ada@Example.com",
        "locale": "en",
        "data": {
            "plan": "gold",
            "seats": 5,
            "vip": true,
            "tags": ["beta", "eu"],
            "signedUpAt": "2024-03-01T10:00:00Z",
            "score": "42"
        }
    })
}

fn payload() -> Value {
    json!({
        "amount": 50,
        "currency": "EUR",
        "flag": false,
        "note": null,
        "count": "7",
        "order": {
            "total": 150.5,
            "placedAt": "2024-05-10",
            "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}]
        },
        "tags": ["red", "green", "blue"],
        "codes": [1, 2, 3]
    })
}

fn cond(on: FilterOn, field: &str, operator: Operator, value: &str) -> FilterCondition {
    FilterCondition { field: field.to_owned(), value: value.to_owned(), operator, on }
}

fn filter(value: Combinator, is_negated: bool, children: Vec<FilterCondition>) -> StepFilter {
    StepFilter { is_negated, type_: FilterType::Statement, value, children }
}

fn run(filters: &[StepFilter]) -> FilterOutcome {
    let (subscriber, payload) = (subscriber(), payload());
    step_passes(filters, &FilterContext { subscriber: &subscriber, payload: &payload })
}

/// Checks each row alone in a filter, plain and negated (negation must flip the result).
fn check_table(operator: Operator, rows: &[(FilterOn, &str, &str, bool)]) {
    for &(on, field, value, expected) in rows {
        let condition = cond(on, field, operator, value);
        let plain = run(&[filter(Combinator::And, false, vec![condition.clone()])]);
        assert_eq!(plain.passed, expected, "{} {field} {:?} {value}: {}", on.as_str(), operator, plain.reason);
        let negated = run(&[filter(Combinator::And, true, vec![condition])]);
        assert_eq!(negated.passed, !expected, "negated {} {field} {:?} {value}", on.as_str(), operator);
    }
}

use FilterOn::{Payload as P, Subscriber as S};

#[test]
fn equal() {
    check_table(
        Operator::Equal,
        &[
            (S, "firstName", "Ada", true),
            (S, "firstName", "ada", false),
            (S, "data.plan", "gold", true),
            (S, "data.seats", "5", true),
            (S, "data.seats", "5.0", true),
            (S, "data.score", "42", true),
            (S, "data.vip", "true", true),
            (S, "data.vip", "false", false),
            (P, "flag", "false", true),
            (P, "amount", "50", true),
            (P, "amount", "51", false),
            (P, "count", "7", true),
            (P, "order.items.1.sku", "B-2", true),
            (P, "order.items.0.qty", "2", true),
            (P, "tags", "red", false),
            (P, "order", "x", false),
            (P, "missing", "x", false),
            (P, "note", "null", false),
        ],
    );
}

#[test]
fn not_equal() {
    check_table(
        Operator::NotEqual,
        &[
            (S, "firstName", "Ada", false),
            (S, "firstName", "ADA", true),
            (S, "data.seats", "5", false),
            (S, "data.seats", "6", true),
            (S, "data.vip", "false", true),
            (P, "amount", "50.0", false),
            (P, "currency", "USD", true),
            (P, "missing", "x", true),
            (P, "note", "x", true),
        ],
    );
}

#[test]
fn larger() {
    check_table(
        Operator::Larger,
        &[
            (P, "amount", "49", true),
            (P, "amount", "50", false),
            (P, "amount", "100", false),
            (P, "order.total", "150", true),
            (P, "count", "6", true),
            (S, "data.seats", "4.5", true),
            (S, "data.signedUpAt", "2024-02-29T23:59:59Z", true),
            (S, "data.signedUpAt", "2024-03-01T10:00:00Z", false),
            (P, "order.placedAt", "2024-05-09", true),
            (P, "currency", "ABC", false),
            (P, "amount", "abc", false),
            (P, "missing", "1", false),
        ],
    );
}

#[test]
fn smaller() {
    check_table(
        Operator::Smaller,
        &[
            (P, "amount", "51", true),
            (P, "amount", "50", false),
            (P, "amount", "-1", false),
            (P, "order.items.0.qty", "3", true),
            (S, "data.score", "100", true),
            (S, "data.signedUpAt", "2024-03-01T12:00:00+01:00", true),
            (S, "data.signedUpAt", "2024-03-01", false),
            (P, "order.placedAt", "2024-05-10T00:00:01Z", true),
            (P, "currency", "ZZZ", false),
            (P, "missing", "1", false),
        ],
    );
}

#[test]
fn larger_equal() {
    check_table(
        Operator::LargerEqual,
        &[
            (P, "amount", "50", true),
            (P, "amount", "50.5", false),
            (S, "data.seats", "5", true),
            // The same instant written with another offset.
            (S, "data.signedUpAt", "2024-03-01T11:00:00+01:00", true),
            (P, "order.placedAt", "2024-05-10T00:00:00", true),
            (P, "tags", "1", false),
            (P, "missing", "0", false),
        ],
    );
}

#[test]
fn smaller_equal() {
    check_table(
        Operator::SmallerEqual,
        &[
            (P, "amount", "50", true),
            (P, "amount", "49.99", false),
            (S, "data.signedUpAt", "2024-03-01T11:00:00+01:00", true),
            (S, "data.signedUpAt", "2024-03-01T09:59:59Z", false),
            (S, "data.vip", "1", false),
            (P, "missing", "0", false),
        ],
    );
}

#[test]
fn between() {
    check_table(
        Operator::Between,
        &[
            (P, "amount", "10,100", true),
            (P, "amount", "50,50", true),
            (P, "amount", "100, 10", true),
            (P, "amount", "51,100", false),
            (P, "count", "1,7", true),
            (P, "order.total", "150.5,151", true),
            (S, "data.signedUpAt", "2024-01-01,2024-12-31", true),
            (S, "data.signedUpAt", "2024-03-02,2024-12-31", false),
            (P, "order.placedAt", "2024-05-10,2024-05-10", true),
            (P, "amount", "10", false),
            (P, "amount", "1,2,3", false),
            (P, "currency", "A,Z", false),
            (P, "missing", "1,2", false),
        ],
    );
}

#[test]
fn not_between() {
    check_table(
        Operator::NotBetween,
        &[
            (P, "amount", "10,100", false),
            (P, "amount", "51,100", true),
            (S, "data.seats", "1,4", true),
            (S, "data.signedUpAt", "2024-03-02,2024-12-31", true),
            (P, "currency", "A,Z", true),
            (P, "missing", "1,2", true),
        ],
    );
}

#[test]
fn like() {
    check_table(
        Operator::Like,
        &[
            (S, "email", "example.COM", true),
            (S, "email", "@example", true),
            (S, "email", "gmail", false),
            (S, "firstName", "", true),
            (S, "data.tags", "BET", true),
            (S, "data.tags", "us", false),
            (P, "amount", "5", true),
            (P, "order.items.0.sku", "a-", true),
            (P, "order", "sku", false),
            (S, "email", "%example%", false),
            (P, "missing", "x", false),
        ],
    );
}

#[test]
fn not_like() {
    check_table(
        Operator::NotLike,
        &[
            (S, "email", "EXAMPLE", false),
            (S, "email", "gmail", true),
            (P, "tags", "gre", false),
            (P, "tags", "yellow", true),
            (P, "missing", "x", true),
        ],
    );
}

#[test]
fn in_list() {
    check_table(
        Operator::In,
        &[
            (S, "data.plan", "silver,gold", true),
            (S, "data.plan", "silver, gold ", true),
            (S, "data.plan", r#"["silver","gold"]"#, true),
            (S, "data.plan", "Gold,silver", false),
            (S, "locale", "de,fr", false),
            (P, "amount", "10,50", true),
            (P, "amount", "[10, 50]", true),
            (P, "count", "[7]", true),
            (S, "data.vip", "true", true),
            (P, "tags", "green", true),
            (P, "tags", "purple", false),
            (P, "currency", "", false),
            (P, "missing", "a,b", false),
        ],
    );
}

#[test]
fn not_in() {
    check_table(
        Operator::NotIn,
        &[
            (S, "data.plan", "silver,gold", false),
            (S, "data.plan", "silver,bronze", true),
            (P, "amount", r#"["50"]"#, false),
            (P, "tags", "purple,orange", true),
            (P, "tags", "purple,blue", false),
            (P, "currency", "", true),
            (P, "missing", "a,b", true),
        ],
    );
}

#[test]
fn any_in() {
    check_table(
        Operator::AnyIn,
        &[
            (P, "tags", "blue,black", true),
            (P, "tags", r#"["black","white"]"#, false),
            (P, "codes", "3,4", true),
            (P, "codes", "[4, 5]", false),
            (S, "data.tags", "eu", true),
            (S, "data.plan", "gold,silver", true),
            (P, "tags", "", false),
            (P, "order", "x", false),
            (P, "missing", "a", false),
        ],
    );
}

#[test]
fn all_in() {
    check_table(
        Operator::AllIn,
        &[
            (P, "tags", "red,blue", true),
            (P, "tags", r#"["red","green","blue"]"#, true),
            (P, "tags", "red,black", false),
            (P, "codes", "[1, 3]", true),
            (P, "codes", "1,4", false),
            (S, "data.tags", "beta", true),
            (S, "data.plan", "gold", true),
            (S, "data.plan", "gold,silver", false),
            (P, "tags", "", true),
            (P, "missing", "a", false),
        ],
    );
}

#[test]
fn missing_fields_make_positive_operators_false_and_negative_ones_true() {
    let all = [
        (Operator::Larger, false),
        (Operator::Smaller, false),
        (Operator::LargerEqual, false),
        (Operator::SmallerEqual, false),
        (Operator::Equal, false),
        (Operator::NotEqual, true),
        (Operator::AllIn, false),
        (Operator::AnyIn, false),
        (Operator::NotIn, true),
        (Operator::Between, false),
        (Operator::NotBetween, true),
        (Operator::Like, false),
        (Operator::NotLike, true),
        (Operator::In, false),
    ];
    for field in ["nope", "order.nope", "order.items.5.sku", "tags.x", "amount.deeper", "note", ""] {
        for (operator, expected) in all {
            check_table(operator, &[(P, field, "1,2", expected)]);
        }
    }
    check_table(Operator::Equal, &[(S, "phone", "", false)]);
    check_table(Operator::NotEqual, &[(S, "phone", "", true)]);
}

#[test]
fn lookup_follows_objects_and_array_indexes() {
    let doc = payload();
    assert_eq!(lookup(&doc, "order.items.0.sku"), Some(&json!("A-1")));
    assert_eq!(lookup(&doc, "codes.2"), Some(&json!(3)));
    assert_eq!(lookup(&doc, "codes.3"), None);
    assert_eq!(lookup(&doc, "codes.-1"), None);
    assert_eq!(lookup(&doc, "order.total"), Some(&json!(150.5)));
    assert_eq!(lookup(&doc, "note"), None);
    assert_eq!(lookup(&json!({"a": {"b.c": 1}}), "a.b.c"), None);
}

#[test]
fn and_requires_every_child_and_or_any_child() {
    let pass = cond(P, "amount", Operator::Equal, "50");
    let fail = cond(P, "currency", Operator::Equal, "USD");
    let cases = [
        (Combinator::And, vec![pass.clone(), pass.clone()], true),
        (Combinator::And, vec![pass.clone(), fail.clone()], false),
        (Combinator::And, vec![fail.clone(), fail.clone()], false),
        (Combinator::Or, vec![pass.clone(), fail.clone()], true),
        (Combinator::Or, vec![fail.clone(), pass.clone()], true),
        (Combinator::Or, vec![fail.clone(), fail.clone()], false),
        (Combinator::And, vec![], true),
        (Combinator::Or, vec![], true),
    ];
    for (combinator, children, expected) in cases {
        let plain = run(&[filter(combinator, false, children.clone())]);
        assert_eq!(plain.passed, expected, "{combinator:?}: {}", plain.reason);
        assert_eq!(run(&[filter(combinator, true, children)]).passed, !expected, "negated {combinator:?}");
    }
}

#[test]
fn mixes_subscriber_and_payload_conditions() {
    let children = vec![cond(S, "data.plan", Operator::Equal, "gold"), cond(P, "amount", Operator::Larger, "10")];
    assert!(run(&[filter(Combinator::And, false, children)]).passed);
}

#[test]
fn no_filters_pass() {
    let outcome = run(&[]);
    assert!(outcome.passed);
    assert_eq!(outcome.reason, "no filters");
}

#[test]
fn step_passes_when_any_filter_passes() {
    let failing = filter(Combinator::And, false, vec![cond(P, "amount", Operator::Larger, "100")]);
    let passing = filter(Combinator::And, false, vec![cond(S, "data.plan", Operator::Equal, "gold")]);
    assert!(run(&[failing.clone(), passing.clone()]).passed);
    assert!(run(&[passing, failing.clone()]).passed);
    assert!(!run(&[failing.clone(), failing]).passed);
}

#[test]
fn reason_names_the_failing_conditions() {
    let outcome = run(&[filter(Combinator::And, false, vec![cond(P, "amount", Operator::Larger, "100")])]);
    assert_eq!(
        outcome,
        FilterOutcome { passed: false, reason: "filter 1: payload.amount LARGER 100 was false (value 50)".to_owned() }
    );

    let filters = [
        filter(
            Combinator::And,
            false,
            vec![cond(P, "amount", Operator::Equal, "50"), cond(S, "data.plan", Operator::Equal, "silver")],
        ),
        filter(
            Combinator::Or,
            false,
            vec![cond(P, "x.y", Operator::Equal, "1"), cond(P, "flag", Operator::Equal, "true")],
        ),
        filter(Combinator::And, true, vec![cond(P, "currency", Operator::Equal, "EUR")]),
    ];
    assert_eq!(
        run(&filters).reason,
        "filter 1: subscriber.data.plan EQUAL silver was false (value \"gold\"); \
         filter 2: payload.x.y EQUAL 1 was false (field missing), payload.flag EQUAL true was false (value false); \
         filter 3 (negated): payload.currency EQUAL EUR was true (value \"EUR\")"
    );
}

#[test]
fn reason_names_the_passing_filter() {
    let filters = [
        filter(Combinator::And, true, vec![]),
        filter(
            Combinator::Or,
            false,
            vec![cond(P, "tags", Operator::AnyIn, "x"), cond(P, "amount", Operator::In, "50")],
        ),
    ];
    let outcome = run(&filters);
    assert!(outcome.passed);
    assert_eq!(outcome.reason, "filter 2 passed: payload.amount IN 50 was true (value 50)");
    assert_eq!(run(&filters[..1]).reason, "filter 1 (negated): no conditions (always matches)");
}

#[test]
fn long_values_are_shortened_in_reasons() {
    let long = "x".repeat(300);
    let payload = json!({ "text": long });
    let filters = [filter(Combinator::And, false, vec![cond(P, "text", Operator::Equal, "y")])];
    let outcome = step_passes(&filters, &FilterContext { subscriber: &json!({}), payload: &payload });
    assert!(outcome.reason.ends_with(&format!("(value \"{}…)", "x".repeat(MAX_VALUE_PREVIEW - 1))));
}

#[test]
fn parses_lists_and_dates() {
    assert_eq!(parse_list(r#"["a", 1, true, null]"#), ["a", "1", "true"]);
    assert_eq!(parse_list(" a, b ,,c "), ["a", "b", "c"]);
    assert_eq!(parse_list("[not json"), ["[not json"]);
    assert!(parse_list("  ").is_empty());
    assert_eq!(parse_number(" 1e3 "), Some(1000.0));
    assert_eq!(parse_number("inf"), None);
    assert_eq!(parse_number("NaN"), None);
    assert_eq!(parse_instant("2024-03-01"), parse_instant("2024-03-01T00:00:00Z"));
    assert_eq!(parse_instant("2024-03-01T01:00:00+01:00"), parse_instant("2024-03-01T00:00:00.000Z"));
    assert_eq!(parse_instant("03/01/2024"), None);
}

#[test]
fn deserializes_the_stored_json_shape() {
    let stored = json!([
        {
            "isNegated": false,
            "type": "GROUP",
            "value": "OR",
            "children": [
                {"field": "data.plan", "value": "gold", "operator": "EQUAL", "on": "subscriber"},
                {"field": "order.total", "value": "10,20", "operator": "NOT_BETWEEN", "on": "payload"}
            ]
        },
        {"isNegated": true, "type": "MULTI_LIST", "value": "AND", "children": []}
    ]);
    let filters = parse_filters(&stored).expect("valid filters");
    assert_eq!(
        filters,
        vec![
            StepFilter {
                is_negated: false,
                type_: FilterType::Group,
                value: Combinator::Or,
                children: vec![
                    cond(S, "data.plan", Operator::Equal, "gold"),
                    cond(P, "order.total", Operator::NotBetween, "10,20"),
                ],
            },
            filter(Combinator::And, true, vec![]).with_type(FilterType::MultiList),
        ]
    );
    assert_eq!(serde_json::to_value(&filters).unwrap(), stored);
}

#[test]
fn every_enum_value_round_trips() {
    let operators = [
        "LARGER",
        "SMALLER",
        "LARGER_EQUAL",
        "SMALLER_EQUAL",
        "EQUAL",
        "NOT_EQUAL",
        "ALL_IN",
        "ANY_IN",
        "NOT_IN",
        "BETWEEN",
        "NOT_BETWEEN",
        "LIKE",
        "NOT_LIKE",
        "IN",
    ];
    for name in operators {
        let operator: Operator = serde_json::from_value(json!(name)).unwrap();
        assert_eq!(operator.as_str(), name);
        assert_eq!(serde_json::to_value(operator).unwrap(), json!(name));
    }
    for name in ["BOOLEAN", "TEXT", "DATE", "NUMBER", "STATEMENT", "LIST", "MULTI_LIST", "GROUP"] {
        let kind: FilterType = serde_json::from_value(json!(name)).unwrap();
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
    }
    for name in ["subscriber", "payload"] {
        let on: FilterOn = serde_json::from_value(json!(name)).unwrap();
        assert_eq!(on.as_str(), name);
    }
}

#[test]
fn unknown_enum_values_are_rejected() {
    let with = |operator: &str, on: &str, kind: &str, value: &str| {
        json!([{"isNegated": false, "type": kind, "value": value,
                "children": [{"field": "a", "value": "b", "operator": operator, "on": on}]}])
    };
    assert!(parse_filters(&with("EQUAL", "payload", "TEXT", "AND")).is_ok());

    let error = parse_filters(&with("CONTAINS", "payload", "TEXT", "AND")).unwrap_err();
    assert_eq!(error.path().to_string(), "[0].children[0].operator");
    assert!(error.to_string().contains("unknown variant `CONTAINS`"), "{error}");

    for bad in [
        with("equal", "payload", "TEXT", "AND"),
        with("EQUAL", "tenant", "TEXT", "AND"),
        with("EQUAL", "payload", "WEBHOOK", "AND"),
        with("EQUAL", "payload", "TEXT", "XOR"),
    ] {
        assert!(parse_filters(&bad).is_err(), "{bad}");
    }
}

#[test]
fn required_fields_are_required() {
    let missing_children = json!([{"isNegated": false, "type": "TEXT", "value": "AND"}]);
    assert!(parse_filters(&missing_children).is_err());
    let missing_on = json!([{"isNegated": false, "type": "TEXT", "value": "AND",
                             "children": [{"field": "a", "value": "b", "operator": "EQUAL"}]}]);
    assert!(parse_filters(&missing_on).is_err());
}

impl StepFilter {
    fn with_type(mut self, type_: FilterType) -> Self {
        self.type_ = type_;
        self
    }
}
