//! A trigger as the engine reads it, and its checks that need no database.

use serde_json::Value;

use crate::domain::subscribers::{validate_profile_at, CredentialsUpdate};
use crate::domain::topics::check_key;
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// Most recipients one trigger may name.
pub const MAX_RECIPIENTS: usize = 1_000;

/// `POST /v1/events/trigger`.
#[derive(Debug, Clone, Default)]
pub struct TriggerRequest {
    /// The workflow's identifier.
    pub name: String,
    /// Always a JSON object.
    pub payload: Value,
    /// Always a JSON object.
    pub overrides: Value,
    pub to: Vec<Recipient>,
    pub transaction_id: Option<String>,
    pub actor: Option<Recipient>,
    pub tenant: Option<TenantReference>,
    /// subscriberIds the trigger's topics must not reach (beyond the reference service, which
    /// excludes only the actor).
    pub exclude: Vec<String>,
}

/// One entry of `to` (or the actor).
#[derive(Debug, Clone)]
pub enum Recipient {
    /// A subscriberId: the subscriber is created if it does not exist.
    SubscriberId(String),
    /// A subscriber object, upserted.
    Subscriber(Box<SubscriberInput>),
    /// Every member of the topic with this key, as of the trigger.
    Topic(String),
    /// Any other value (malformed: skipped, or refused when it looks like a topic).
    Other(Value),
}

/// A subscriber object: its present fields are written, `data` replaces the stored one. It serializes
/// as the client sent it (the activity API's `to`): present fields only, channels aside.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriberInput {
    pub subscriber_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Channel credentials to merge, as `PATCH …/credentials` does.
    #[serde(skip)]
    pub channels: Vec<CredentialsUpdate>,
}

/// `tenant`: an identifier that must exist, or an object that is upserted.
#[derive(Debug, Clone, PartialEq)]
pub enum TenantReference {
    Identifier(String),
    Upsert { identifier: String, name: Option<String>, data: Option<Value> },
}

impl TenantReference {
    pub fn identifier(&self) -> &str {
        match self {
            TenantReference::Identifier(identifier) | TenantReference::Upsert { identifier, .. } => identifier,
        }
    }
}

impl Recipient {
    /// The subscriber this entry names, or `None` when it names none (malformed: skipped).
    fn subscriber(&self) -> Option<SubscriberInput> {
        match self {
            Recipient::SubscriberId(id) => Some(SubscriberInput { subscriber_id: id.clone(), ..Default::default() }),
            Recipient::Subscriber(input) => Some(input.as_ref().clone()),
            Recipient::Topic(_) | Recipient::Other(_) => None,
        }
    }

    /// An object that means a topic but does not name one with a string `topicKey`.
    fn is_malformed_topic(&self) -> bool {
        matches!(self, Recipient::Other(Value::Object(fields))
            if fields.contains_key("topicKey") || fields.get("type").and_then(Value::as_str) == Some("Topic"))
    }
}

/// The trigger's field checks (422 listing every bad field). A malformed topic is refused, never
/// dropped silently.
pub fn validate(request: &TriggerRequest) -> AppResult<()> {
    let mut validator = Validator::new();
    validator.check(!request.name.trim().is_empty(), "name", "name must not be empty", request.name.as_str());
    validator.check(
        request.to.len() <= MAX_RECIPIENTS,
        "to",
        format!("to must name at most {MAX_RECIPIENTS} recipients"),
        request.to.len(),
    );
    if let Some(transaction_id) = &request.transaction_id {
        validator.check(
            !transaction_id.is_empty(),
            "transactionId",
            "transactionId must not be empty",
            transaction_id.as_str(),
        );
    }
    validator.check(
        request.exclude.len() <= MAX_RECIPIENTS,
        "exclude",
        format!("exclude must name at most {MAX_RECIPIENTS} subscriberIds"),
        request.exclude.len(),
    );
    for (index, recipient) in request.to.iter().enumerate() {
        if recipient.is_malformed_topic() {
            validator.reject(
                &format!("to.{index}.topicKey"),
                "a topic recipient is {\"type\": \"Topic\", \"topicKey\": \"<key>\"}",
                recipient_value(recipient),
            );
        }
        if let Recipient::Topic(key) = recipient {
            check_key(&mut validator, &format!("to.{index}.topicKey"), key);
        }
        if let Recipient::Subscriber(input) = recipient {
            validate_subscriber(&mut validator, &format!("to.{index}."), input);
        }
    }
    match &request.actor {
        Some(Recipient::Subscriber(input)) => validate_subscriber(&mut validator, "actor.", input),
        Some(Recipient::Other(value)) => {
            validator.reject("actor", "actor must be a subscriberId or an object with one", value.clone())
        }
        _ => {}
    }
    if let Some(tenant) = &request.tenant {
        validator.check(
            !tenant.identifier().trim().is_empty(),
            "tenant.identifier",
            "tenant needs an identifier",
            tenant.identifier(),
        );
    }
    validator.finish()
}

fn validate_subscriber(validator: &mut Validator, prefix: &str, input: &SubscriberInput) {
    validate_profile_at(
        validator,
        prefix,
        input.email.as_ref(),
        input.timezone.as_ref(),
        input.locale.as_ref(),
        input.avatar.as_ref(),
    );
    if let Some(data) = &input.data {
        validator.check(data.is_object(), &format!("{prefix}data"), "data must be an object", data.clone());
    }
}

fn recipient_value(recipient: &Recipient) -> Value {
    match recipient {
        Recipient::SubscriberId(id) => Value::String(id.clone()),
        Recipient::Subscriber(input) => Value::String(input.subscriber_id.clone()),
        Recipient::Topic(key) => Value::String(key.clone()),
        Recipient::Other(value) => value.clone(),
    }
}

/// The valid recipients in order, one per subscriberId (a repeated subscriberId is one recipient;
/// its later objects' fields win). Entries naming no subscriber are skipped.
pub fn distinct_recipients(to: &[Recipient]) -> Vec<SubscriberInput> {
    let mut recipients: Vec<SubscriberInput> = Vec::with_capacity(to.len());
    let mut index_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for input in to.iter().filter_map(Recipient::subscriber) {
        if input.subscriber_id.trim().is_empty() {
            continue;
        }
        match index_of.get(&input.subscriber_id) {
            Some(&index) => recipients[index].merge(input),
            None => {
                index_of.insert(input.subscriber_id.clone(), recipients.len());
                recipients.push(input);
            }
        }
    }
    recipients
}

/// The distinct topic keys of `to`, in order.
pub fn topic_keys(to: &[Recipient]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for recipient in to {
        if let Recipient::Topic(key) = recipient {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    keys
}

/// The actor as a subscriber to upsert.
pub fn actor_input(actor: &Option<Recipient>) -> AppResult<Option<SubscriberInput>> {
    match actor {
        None => Ok(None),
        Some(recipient) => match recipient.subscriber() {
            Some(input) if !input.subscriber_id.trim().is_empty() => Ok(Some(input)),
            _ => Err(AppError::invalid_field("actor.subscriberId", "actor needs a subscriberId", Value::Null)),
        },
    }
}

impl SubscriberInput {
    /// Writes `later`'s present fields over these (a later mention of the same subscriber wins).
    pub(super) fn merge(&mut self, later: SubscriberInput) {
        macro_rules! take {
            ($($field:ident),*) => { $( if later.$field.is_some() { self.$field = later.$field; } )* };
        }
        take!(email, first_name, last_name, phone, avatar, locale, timezone, data);
        self.channels.extend(later.channels);
    }

    /// Whether it sends a profile field, which its trigger writes; a subscriberId alone writes nothing
    /// to a subscriber that exists.
    pub(super) fn sends_profile(&self) -> bool {
        let texts =
            [&self.email, &self.first_name, &self.last_name, &self.phone, &self.avatar, &self.locale, &self.timezone];
        texts.iter().any(|field| field.is_some()) || self.data.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(id: &str, email: Option<&str>) -> Recipient {
        Recipient::Subscriber(Box::new(SubscriberInput {
            subscriber_id: id.into(),
            email: email.map(str::to_string),
            ..Default::default()
        }))
    }

    #[test]
    fn topic_keys_are_distinct_in_order_and_topics_are_no_direct_recipient() {
        let to = vec![
            Recipient::Topic("b".into()),
            Recipient::SubscriberId("s".into()),
            Recipient::Topic("a".into()),
            Recipient::Topic("b".into()),
        ];
        assert_eq!(topic_keys(&to), ["b", "a"]);
        let direct: Vec<String> = distinct_recipients(&to).into_iter().map(|r| r.subscriber_id).collect();
        assert_eq!(direct, ["s"]);
    }

    #[test]
    fn repeated_subscribers_are_one_recipient_and_malformed_entries_are_skipped() {
        let to = vec![
            Recipient::SubscriberId("a".into()),
            Recipient::Other(json!({"foo": 1})),
            object("b", Some("b@example.com")),
            Recipient::SubscriberId("".into()),
            object("a", Some("a@example.com")),
        ];
        let recipients = distinct_recipients(&to);
        let ids: Vec<&str> = recipients.iter().map(|r| r.subscriber_id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(recipients[0].email.as_deref(), Some("a@example.com"));
    }

    #[test]
    fn malformed_topics_bad_fields_and_too_many_recipients_are_422s_naming_each_field() {
        let mut request = TriggerRequest {
            name: "".into(),
            to: vec![
                Recipient::Other(json!({"type": "Topic", "topicKey": 7})),
                object("x", Some("nope")),
                Recipient::Topic("bad key".into()),
                Recipient::Topic("good:key".into()),
            ],
            transaction_id: Some(String::new()),
            ..Default::default()
        };
        let Err(AppError::Validation(fields)) = validate(&request) else { panic!("422 expected") };
        let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["name", "transactionId", "to.0.topicKey", "to.1.email", "to.2.topicKey"]);

        request = TriggerRequest {
            name: "w".into(),
            to: (0..=MAX_RECIPIENTS).map(|i| Recipient::SubscriberId(i.to_string())).collect(),
            ..Default::default()
        };
        let Err(AppError::Validation(fields)) = validate(&request) else { panic!("422 expected") };
        assert_eq!(fields[0].path, "to");
    }
}
