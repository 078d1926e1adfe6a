//! What a channel step's controls render to.

use serde_json::{json, Value};

use crate::engine::render::{render_controls, RenderContext, RenderError};

/// The rendered parts of a message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Content {
    pub subject: Option<String>,
    pub body: String,
    /// The in-app message's call to action (`MessageCta` JSON), `{}` when it has none.
    pub cta: Value,
}

/// Renders the step's controls with Liquid and reads the parts of `channel`'s message.
pub fn render(channel: &str, controls: &Value, context: &RenderContext) -> Result<Content, RenderError> {
    let rendered = render_controls(controls, context)?;
    let text = |name: &str| rendered.get(name).and_then(Value::as_str).map(str::to_string);
    let body = text("body").unwrap_or_default();
    Ok(match channel {
        "in_app" => Content { subject: text("subject"), body, cta: in_app_cta(&rendered) },
        "email" | "push" => Content { subject: text("subject"), body, cta: json!({}) },
        _ => Content { subject: None, body, cta: json!({}) },
    })
}

/// `redirect` and the two actions of an in-app step as the message's `cta`.
fn in_app_cta(controls: &Value) -> Value {
    let mut cta = serde_json::Map::new();
    if let Some(url) = controls["redirect"]["url"].as_str() {
        cta.insert("type".into(), json!("redirect"));
        cta.insert("data".into(), json!({ "url": url }));
    }
    let buttons: Vec<Value> = [("primary", "primaryAction"), ("secondary", "secondaryAction")]
        .into_iter()
        .filter_map(|(kind, control)| {
            controls[control]["label"].as_str().map(|label| json!({ "type": kind, "content": label }))
        })
        .collect();
    if !buttons.is_empty() {
        cta.insert("action".into(), json!({ "status": "pending", "buttons": buttons }));
    }
    Value::Object(cta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_app_controls_render_to_subject_body_and_cta() {
        let controls = json!({
            "subject": "Hi {{ subscriber.firstName }}",
            "body": "Order {{ payload.order }} shipped",
            "redirect": {"url": "/orders/{{ payload.order }}", "target": "_self"},
            "primaryAction": {"label": "Track", "redirect": {"url": "/track"}},
            "secondaryAction": {"label": "Dismiss"}
        });
        let context = RenderContext {
            payload: json!({"order": 42}),
            subscriber: json!({"firstName": "Ada"}),
            ..Default::default()
        };
        let content = render("in_app", &controls, &context).unwrap();
        assert_eq!(content.subject.as_deref(), Some("Hi Ada"));
        assert_eq!(content.body, "Order 42 shipped");
        assert_eq!(
            content.cta,
            json!({
                "type": "redirect",
                "data": {"url": "/orders/42"},
                "action": {"status": "pending", "buttons": [
                    {"type": "primary", "content": "Track"},
                    {"type": "secondary", "content": "Dismiss"}
                ]}
            })
        );
    }

    #[test]
    fn sms_keeps_only_the_body_and_a_step_without_actions_has_an_empty_cta() {
        let content = render(
            "sms",
            &json!({"body": "Code {{ payload.code }}", "subject": "x"}),
            &RenderContext { payload: json!({"code": "123"}), ..Default::default() },
        )
        .unwrap();
        assert_eq!(content, Content { subject: None, body: "Code 123".into(), cta: json!({}) });
        assert_eq!(render("in_app", &json!({"body": "b"}), &RenderContext::default()).unwrap().cta, json!({}));
    }
}
