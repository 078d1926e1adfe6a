//! What a channel step's controls render to.

use serde_json::{json, Value};

use crate::engine::render::{render_controls, RenderContext, RenderError};
use crate::workflow::controls::{read, ChannelControls};
use crate::workflow::StepKind;

/// The rendered parts of a message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Content {
    pub subject: Option<String>,
    pub body: String,
    /// The in-app message's call to action (`MessageCta` JSON), `{}` when it has none.
    pub cta: Value,
}

/// Renders the step's controls with Liquid and reads the parts of a `kind` step's message.
pub fn render(kind: StepKind, controls: &Value, context: &RenderContext) -> Result<Content, RenderError> {
    let rendered: ChannelControls = read(&render_controls(controls, context)?);
    let body = rendered.body.clone().unwrap_or_default();
    Ok(match kind {
        StepKind::InApp => Content { cta: in_app_cta(&rendered), subject: rendered.subject, body },
        StepKind::Email | StepKind::Push => Content { subject: rendered.subject, body, cta: json!({}) },
        StepKind::Sms | StepKind::Chat | StepKind::Digest | StepKind::Delay | StepKind::Custom => {
            Content { subject: None, body, cta: json!({}) }
        }
    })
}

/// `redirect` and the two actions of an in-app step as the message's `cta`.
fn in_app_cta(controls: &ChannelControls) -> Value {
    let mut cta = serde_json::Map::new();
    if let Some(url) = controls.redirect.as_ref().and_then(|redirect| redirect.url.as_ref()) {
        cta.insert("type".into(), json!("redirect"));
        cta.insert("data".into(), json!({ "url": url }));
    }
    let buttons: Vec<Value> = [("primary", &controls.primary_action), ("secondary", &controls.secondary_action)]
        .into_iter()
        .filter_map(|(kind, action)| {
            let label = action.as_ref()?.label.as_ref()?;
            Some(json!({ "type": kind, "content": label }))
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
        let content = render(StepKind::InApp, &controls, &context).unwrap();
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
            StepKind::Sms,
            &json!({"body": "Code {{ payload.code }}", "subject": "x"}),
            &RenderContext { payload: json!({"code": "123"}), ..Default::default() },
        )
        .unwrap();
        assert_eq!(content, Content { subject: None, body: "Code 123".into(), cta: json!({}) });
        assert_eq!(render(StepKind::InApp, &json!({"body": "b"}), &RenderContext::default()).unwrap().cta, json!({}));
    }
}
