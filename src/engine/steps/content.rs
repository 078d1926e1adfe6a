//! What a channel step's controls render to.

use serde_json::{json, Value};

use super::email_body;
use crate::engine::render::{render_controls, RenderContext, RenderError};
use crate::workflow::controls::{read, ChannelControls};
use crate::workflow::StepKind;

/// The rendered parts of a message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Content {
    pub subject: Option<String>,
    /// The body; for email, its HTML (a block-editor document rendered to HTML).
    pub body: String,
    /// Email: the plain-text alternative of the body.
    pub text: Option<String>,
    /// Email: the step's sender name.
    pub sender_name: Option<String>,
    /// The in-app message's call to action (`MessageCta` JSON), `{}` when it has none.
    pub cta: Value,
}

/// Renders the step's controls with Liquid and reads the parts of a `kind` step's message.
pub fn render(kind: StepKind, controls: &Value, context: &RenderContext) -> Result<Content, RenderError> {
    let rendered: ChannelControls = read(&render_controls(controls, context)?);
    let body = rendered.body.clone().unwrap_or_default();
    let plain = |subject, body| Content { subject, body, text: None, sender_name: None, cta: json!({}) };
    Ok(match kind {
        StepKind::InApp => Content { cta: in_app_cta(&rendered), ..plain(rendered.subject, body) },
        StepKind::Email => {
            let raw_body = controls["body"].as_str().unwrap_or_default();
            let (html, text) = match email_body::block_document(raw_body, rendered.editor_type.as_deref()) {
                Some(document) => email_body::from_blocks(&render_controls(&document, context)?),
                None => (body.clone(), email_body::html_to_text(&body)),
            };
            Content { text: Some(text), sender_name: rendered.sender_name, ..plain(rendered.subject, html) }
        }
        StepKind::Push => plain(rendered.subject, body),
        StepKind::Sms | StepKind::Chat | StepKind::Digest | StepKind::Delay | StepKind::Custom => plain(None, body),
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
        assert_eq!(
            content,
            Content { subject: None, body: "Code 123".into(), text: None, sender_name: None, cta: json!({}) }
        );
        assert_eq!(render(StepKind::InApp, &json!({"body": "b"}), &RenderContext::default()).unwrap().cta, json!({}));
    }

    #[test]
    fn a_block_email_renders_variables_inside_the_document_and_sends_html_with_text() {
        let document = json!({"type": "doc", "content": [{"type": "paragraph", "content": [
            {"type": "text", "text": "Hi {{ subscriber.firstName }}"}]}]});
        let controls =
            json!({"subject": "Re: {{ payload.topic }}", "body": document.to_string(), "senderName": "Acme"});
        let context = RenderContext {
            payload: json!({"topic": "your \"order\""}),
            subscriber: json!({"firstName": "Ada \"<3\""}),
            ..Default::default()
        };
        let content = render(StepKind::Email, &controls, &context).unwrap();
        assert_eq!(content.subject.as_deref(), Some("Re: your \"order\""));
        assert!(content.body.contains("Hi Ada &quot;&lt;3&quot;"), "{}", content.body);
        assert_eq!(content.text.as_deref(), Some("Hi Ada \"<3\""));
        assert_eq!(content.sender_name.as_deref(), Some("Acme"));
        let html = render(
            StepKind::Email,
            &json!({"body": "<p>Hi {{ subscriber.firstName }}</p>", "editorType": "html"}),
            &context,
        )
        .unwrap();
        assert_eq!((html.body.as_str(), html.text.as_deref()), ("<p>Hi Ada \"<3\"</p>", Some("Hi Ada \"<3\"")));
    }
}
