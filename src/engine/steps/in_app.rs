//! The in-app step: renders its controls and stores the message in the subscriber's feed. No provider
//! is called, so the message is written in the same transaction that completes the job.

use uuid::Uuid;

use super::message::{MessageStatus, NewMessage};
use super::{content, Outcome, StepInput};
use crate::engine::details::DetailSource;
use crate::workflow::{StepKind, INTERNAL_PROVIDER};

pub fn run(input: &StepInput<'_>) -> Outcome {
    let job = input.job;
    if let Err(outcome) = input.check_filters().and_then(|()| input.check_preferences(StepKind::InApp.as_str())) {
        return *outcome;
    }
    let content = match content::render(StepKind::InApp, input.step().controls(), &input.render_context()) {
        Ok(content) => content,
        Err(error) => {
            let detail = format!("The message could not be rendered: {error}");
            return Outcome::failed_because(job, DetailSource::Payload, detail);
        }
    };
    // The environment's in-app integration, if it has one; the built-in feed otherwise.
    let provider_id = input
        .batch
        .integrations
        .iter()
        .find(|integration| {
            integration.row.environment_id == job.environment_id && integration.row.channel == StepKind::InApp.as_str()
        })
        .map_or(INTERNAL_PROVIDER.to_string(), |integration| integration.row.provider_id.clone());
    let message_id = Uuid::now_v7();
    let (template_identifier, actor) = input.message_origin();
    // No execution detail is stored: the activity API renders a completed in-app job's two from the
    // job (`domain::activity::in_app_details`).
    let mut outcome = Outcome::completed(job);
    outcome.provider_id = Some(provider_id.clone());
    outcome.result = Some(serde_json::json!({ "messageId": message_id, "status": "sent" }));
    outcome.new_message = Some(NewMessage {
        id: message_id,
        channel: StepKind::InApp.as_str().into(),
        template_identifier,
        actor,
        payload: input.payload().clone(),
        overrides: input.overrides().clone(),
        subject: content.subject,
        content: Some(serde_json::Value::String(content.body)),
        title: None,
        cta: content.cta,
        email: None,
        phone: None,
        direct_webhook_url: None,
        device_tokens: Vec::new(),
        provider_id: Some(provider_id),
        status: MessageStatus::Sent,
        error_id: None,
        error_text: None,
        delivered: true,
    });
    outcome
}
