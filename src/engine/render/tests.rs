//! Tests of Liquid rendering of step controls.

use serde_json::json;

use super::*;

fn context() -> RenderContext {
    RenderContext {
        payload: json!({
            "name": "Ada",
            "count": 3,
            "ratio": 1.5,
            "vip": true,
            "order": { "id": "o-1", "items": [{ "sku": "A1" }, { "sku": "B2" }] },
            "tags": ["beta", "eu"],
            "createdAt": "2024-03-01T10:00:00Z",
            "none": null
        }),
        subscriber: json!({ "subscriberId": "sub-1", "firstName": "Grace", "data": { "plan": "gold" } }),
        actor: json!({ "firstName": "Linus", "avatar": "https://example.com/a.png" }),
        tenant: json!({ "identifier": "acme", "data": { "color": "red" } }),
        step: json!({
            "digest": true,
            "events": [
                { "payload": { "title": "First" } },
                { "payload": { "title": "Second" } },
                { "payload": {} }
            ]
        }),
    }
}

fn render(template: &str) -> String {
    render_text(template, &context()).unwrap_or_else(|e| panic!("{template}: {e}"))
}

#[test]
fn root_variables() {
    assert_eq!(render("Hi {{ payload.name }}"), "Hi Ada");
    assert_eq!(render("{{ subscriber.firstName }}/{{ subscriber.subscriberId }}"), "Grace/sub-1");
    assert_eq!(render("{{ actor.firstName }} {{ actor.avatar }}"), "Linus https://example.com/a.png");
    assert_eq!(render("{{ tenant.identifier }}"), "acme");
    assert_eq!(render("{{ step.digest }}"), "true");
}

#[test]
fn nested_paths_and_indexes() {
    assert_eq!(render("{{ payload.order.id }}"), "o-1");
    assert_eq!(render("{{ payload.order.items[1].sku }}"), "B2");
    assert_eq!(render("{{ payload.order.items.first.sku }}-{{ payload.order.items.last.sku }}"), "A1-B2");
    assert_eq!(render("{{ subscriber.data.plan }} {{ tenant.data.color }}"), "gold red");
    assert_eq!(render("{{ payload.order.items.size }}"), "2");
    assert_eq!(render("{{ payload.order.size }} {{ payload.name.size }}"), "2 3");
}

#[test]
fn numbers_render_without_fraction_for_integers() {
    assert_eq!(render("{{ payload.count }}"), "3");
    assert_eq!(render("{{ payload.ratio }}"), "1.5");
    assert_eq!(render("{{ payload.count | plus: 1 }}"), "4");
}

#[test]
fn for_loops_over_step_events() {
    assert_eq!(
        render("{% for event in step.events %}{{ forloop.index }}:{{ event.payload.title }};{% endfor %}"),
        "1:First;2:Second;3:;"
    );
    assert_eq!(
        render("{% for t in payload.tags %}{{ t }}{% unless forloop.last %},{% endunless %}{% endfor %}"),
        "beta,eu"
    );
    assert_eq!(render("{% for e in payload.missing %}x{% else %}none{% endfor %}"), "none");
}

#[test]
fn filters() {
    assert_eq!(render("{{ payload.name | upcase }}"), "ADA");
    assert_eq!(render("{{ step.events | size }}"), "3");
    assert_eq!(render("{{ payload.tags | size }}"), "2");
    assert_eq!(render("{{ payload.tags | join: ', ' }}"), "beta, eu");
    assert_eq!(render("{{ payload.name | default: 'x' }}"), "Ada");
    assert_eq!(render("{{ payload.none | default: 'x' }}"), "x");
    assert_eq!(render("{{ payload.createdAt | date: '%Y-%m-%d %H:%M' }}"), "2024-03-01 10:00");
    assert_eq!(render("{{ step.events | map: 'payload' | map: 'title' | join: '+' }}"), "First+Second");
}

#[test]
fn date_filter_accepts_rfc3339_and_liquid_formats() {
    let context = RenderContext {
        payload: json!({
            "utc": "2024-03-01T10:00:00Z",
            "offset": "2024-03-01T23:30:00.250+02:00",
            "plain": "2024-03-01 10:00:00 +0000",
            "notADate": "soon"
        }),
        ..RenderContext::default()
    };
    let render = |t: &str| render_text(t, &context).unwrap();
    assert_eq!(render("{{ payload.utc | date: '%b %d, %Y' }}"), "Mar 01, 2024");
    assert_eq!(render("{{ payload.offset | date: '%Y-%m-%d %H:%M %z' }}"), "2024-03-01 23:30 +0200");
    assert_eq!(render("{{ payload.plain | date: '%d/%m/%Y' }}"), "01/03/2024");
    // Liquid leaves what it cannot parse as a date unchanged.
    assert_eq!(render("{{ payload.notADate | date: '%Y' }}"), "soon");
    assert_eq!(render("[{{ payload.missing | date: '%Y' }}]"), "[]");
}

#[test]
fn loops_stay_lenient_including_nested_loops() {
    let context = RenderContext {
        step: json!({ "events": [
            { "payload": { "items": [{ "name": "a" }, {}] } },
            { "payload": {} }
        ] }),
        ..RenderContext::default()
    };
    let template = "{% for e in step.events %}[{% for i in e.payload.items %}{{ i.name | default: '?' }}{{ i.x.y }}\
                    {% endfor %}{% if e.payload.missing %}!{% endif %}{{ e.nope.deeper }}]{% endfor %}";
    assert_eq!(render_text(template, &context).unwrap(), "[a?][]");
    assert_eq!(
        render_text("{% for e in step.events %}{{ forloop.index }}/{{ forloop.length }} {% endfor %}", &context)
            .unwrap(),
        "1/2 2/2 "
    );
    assert_eq!(render_text("{{ step.events[-1].payload.size }}", &context).unwrap(), "0");
}

#[test]
fn undefined_variables_are_empty() {
    assert_eq!(render("[{{ payload.missing }}]"), "[]");
    assert_eq!(render("[{{ payload.missing.deeper.still }}]"), "[]");
    assert_eq!(render("[{{ nosuchroot.x }}][{{ nosuchroot }}]"), "[][]");
    assert_eq!(render("[{{ payload.order.items[9].sku }}]"), "[]");
    assert_eq!(render("[{{ payload.none }}]"), "[]");
    assert_eq!(render("{{ payload.missing | default: 'x' }}"), "x");
    assert_eq!(render("{{ payload.missing.deeper | default: 'y' }}"), "y");
    assert_eq!(render("{% if payload.missing %}yes{% else %}no{% endif %}"), "no");
    assert_eq!(render("{% if payload.missing == nil %}nil{% endif %}"), "nil");
    assert_eq!(render("{% if payload.vip %}yes{% else %}no{% endif %}"), "yes");
    assert_eq!(render("{{ payload.missing | size }}"), "0");
    assert_eq!(render("[{{ payload.missing | upcase }}]"), "[]");
}

#[test]
fn empty_context_is_lenient() {
    let context = RenderContext::default();
    assert_eq!(render_text("Hi {{ subscriber.firstName | default: 'there' }}!", &context).unwrap(), "Hi there!");
    assert_eq!(render_text("{{ step.events | size }}", &context).unwrap(), "0");
}

#[test]
fn assign_and_capture() {
    assert_eq!(render("{% assign n = payload.name | upcase %}{{ n }}"), "ADA");
    assert_eq!(render("{% capture c %}{{ actor.firstName }}!{% endcapture %}{{ c }}"), "Linus!");
}

#[test]
fn fast_path_returns_plain_strings_untouched() {
    // Not valid Liquid if parsed (`{% endif %}` alone would be an error), but it has no `{{`/`{%` markers.
    for plain in ["", "Plain text", "50% off { braces } and }} closers", "{ {not} }"] {
        assert_eq!(render_text(plain, &RenderContext::default()).unwrap(), plain);
    }
}

#[test]
fn render_controls_recurses_and_keeps_non_strings() {
    let controls = json!({
        "subject": "Order {{ payload.order.id }}",
        "body": "Hi {{ subscriber.firstName }}",
        "avatar": "{{ actor.avatar }}",
        "primaryAction": { "label": "Open", "redirect": { "url": "/orders/{{ payload.order.id }}", "target": "_self" } },
        "actions": [{ "label": "{{ payload.name | upcase }}" }, 7],
        "count": 2,
        "enabled": false,
        "nothing": null,
        "data": { "n": 1.5 }
    });
    let rendered = render_controls(&controls, &context()).unwrap();
    assert_eq!(
        rendered,
        json!({
            "subject": "Order o-1",
            "body": "Hi Grace",
            "avatar": "https://example.com/a.png",
            "primaryAction": { "label": "Open", "redirect": { "url": "/orders/o-1", "target": "_self" } },
            "actions": [{ "label": "ADA" }, 7],
            "count": 2,
            "enabled": false,
            "nothing": null,
            "data": { "n": 1.5 }
        })
    );
    assert_eq!(render_controls(&json!(42), &context()).unwrap(), json!(42));
    assert_eq!(render_controls(&json!("{{ payload.count }}"), &context()).unwrap(), json!("3"));
}

#[test]
fn parse_errors_name_the_control_path() {
    let controls =
        json!({ "subject": "ok", "primaryAction": { "redirect": { "url": "{{ payload.x | nosuchfilter }}" } } });
    let err = render_controls(&controls, &context()).unwrap_err();
    assert_eq!(err.path, "primaryAction.redirect.url");
    assert_eq!(err.kind, RenderErrorKind::Parse);
    let message = err.to_string();
    assert!(message.starts_with("control `primaryAction.redirect.url`: invalid Liquid template: "), "{message}");
    assert!(message.contains("nosuchfilter"), "{message}");
    assert!(!message.contains('\n'), "{message}");

    let err =
        render_controls(&json!({ "actions": [{}, { "label": "{% if %}x{% endif %}" }] }), &context()).unwrap_err();
    assert_eq!(err.path, "actions[1].label");
    assert_eq!(err.kind, RenderErrorKind::Parse);

    let err = render_controls(&json!(["{% for x in %}"]), &context()).unwrap_err();
    assert_eq!(err.path, "[0]");
}

#[test]
fn render_text_errors_have_no_path() {
    let err = render_text("{{ payload.name | nosuchfilter }}", &context()).unwrap_err();
    assert_eq!(err.path, "");
    assert!(err.to_string().starts_with("invalid Liquid template: "), "{err}");
    let err = render_text("{% if payload.vip %}unterminated", &context()).unwrap_err();
    assert_eq!(err.kind, RenderErrorKind::Parse);
}

#[test]
fn render_errors_are_reported() {
    let err = render_text("{{ payload.name | plus: 'abc' | divided_by: 0 }}", &context()).unwrap_err();
    assert_eq!(err.kind, RenderErrorKind::Render, "{err}");
    assert!(err.to_string().starts_with("Liquid rendering failed: "), "{err}");
}

#[test]
fn a_template_is_parsed_once_per_process_and_rendered_for_each_context() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let parses = AtomicUsize::new(0);
    let counted = |template: &str| {
        parses.fetch_add(1, Ordering::Relaxed);
        PARSER.parse(template)
    };
    let template = "Hello {{ payload.name }} (parsed once)";
    let first = parsed(template, counted).unwrap();
    let second = parsed(template, counted).unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &second));
    assert_eq!(parses.load(Ordering::Relaxed), 1);

    let mut other = context();
    other.payload = json!({"name": "Grace"});
    assert_eq!(render_text(template, &context()).unwrap(), "Hello Ada (parsed once)");
    assert_eq!(render_text(template, &other).unwrap(), "Hello Grace (parsed once)");

    // A template that does not parse is not kept: each render reports its error again.
    for _ in 0..2 {
        assert!(parsed("{{ payload.name (never kept)", counted).is_err());
    }
    assert_eq!(parses.load(Ordering::Relaxed), 3);
}
