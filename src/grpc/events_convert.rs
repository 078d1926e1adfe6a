//! proto ↔ domain for triggers.

use serde_json::{json, Value};

use crate::domain::subscribers::{ChannelCredentials, CredentialsUpdate};
use crate::engine::trigger::{
    Recipient, SubscriberInput, TenantReference, TriggerOutcome, TriggerRequest, TriggerStatus,
};
use crate::proto::herald::v1 as pb;
use crate::wire::struct_to_json;
use pb::trigger_event_status_enum::TriggerEventStatus;

fn object_or_empty(value: Option<pbjson_types::Struct>) -> Value {
    value.as_ref().map_or_else(|| json!({}), struct_to_json)
}

impl From<pb::TriggerEventRequest> for TriggerRequest {
    fn from(request: pb::TriggerEventRequest) -> Self {
        Self {
            name: request.name,
            payload: object_or_empty(request.payload),
            overrides: object_or_empty(request.overrides),
            to: request.to.into_iter().map(Recipient::from).collect(),
            transaction_id: request.transaction_id,
            exclude: request.exclude,
            actor: request.actor.and_then(|actor| actor.kind).map(|kind| match kind {
                pb::trigger_actor::Kind::SubscriberId(id) => Recipient::SubscriberId(id),
                pb::trigger_actor::Kind::Subscriber(subscriber) => Recipient::Subscriber(Box::new(subscriber.into())),
            }),
            tenant: request.tenant.and_then(|tenant| tenant.kind).map(|kind| match kind {
                pb::trigger_tenant::Kind::Identifier(identifier) => TenantReference::Identifier(identifier),
                pb::trigger_tenant::Kind::Tenant(tenant) => TenantReference::Upsert {
                    identifier: tenant.identifier.unwrap_or_default(),
                    name: tenant.name,
                    data: tenant.data.as_ref().map(struct_to_json),
                },
            }),
        }
    }
}

impl From<pb::TriggerRecipient> for Recipient {
    fn from(recipient: pb::TriggerRecipient) -> Self {
        match recipient.kind {
            Some(pb::trigger_recipient::Kind::SubscriberId(id)) => Recipient::SubscriberId(id),
            Some(pb::trigger_recipient::Kind::Subscriber(subscriber)) => {
                Recipient::Subscriber(Box::new(subscriber.into()))
            }
            Some(pb::trigger_recipient::Kind::Topic(topic)) => Recipient::Topic(topic.topic_key),
            Some(pb::trigger_recipient::Kind::Other(other)) => Recipient::Other(struct_to_json(&other)),
            None => Recipient::Other(Value::Null),
        }
    }
}

impl From<pb::TriggerSubscriber> for SubscriberInput {
    fn from(subscriber: pb::TriggerSubscriber) -> Self {
        Self {
            subscriber_id: subscriber.subscriber_id,
            email: subscriber.email,
            first_name: subscriber.first_name,
            last_name: subscriber.last_name,
            phone: subscriber.phone,
            avatar: subscriber.avatar,
            locale: subscriber.locale,
            timezone: subscriber.timezone,
            data: subscriber.data.as_ref().map(struct_to_json),
            channels: subscriber
                .channels
                .into_iter()
                .map(|channel| CredentialsUpdate {
                    provider_id: channel.provider_id,
                    integration_identifier: channel.integration_identifier,
                    credentials: Some(channel.credentials.map(ChannelCredentials::from).unwrap_or_default()),
                    supplied: Default::default(),
                })
                .collect(),
        }
    }
}

impl From<TriggerStatus> for TriggerEventStatus {
    fn from(status: TriggerStatus) -> Self {
        match status {
            TriggerStatus::Error => TriggerEventStatus::Error,
            TriggerStatus::TriggerNotActive => TriggerEventStatus::TriggerNotActive,
            TriggerStatus::NoWorkflowActiveStepsDefined => TriggerEventStatus::NoWorkflowActiveStepsDefined,
            TriggerStatus::NoWorkflowStepsDefined => TriggerEventStatus::NoWorkflowStepsDefined,
            TriggerStatus::Processed => TriggerEventStatus::Processed,
            TriggerStatus::NoTenantFound => TriggerEventStatus::NoTenantFound,
            TriggerStatus::InvalidRecipients => TriggerEventStatus::InvalidRecipients,
        }
    }
}

impl From<TriggerOutcome> for pb::TriggerEventResponse {
    fn from(outcome: TriggerOutcome) -> Self {
        Self {
            acknowledged: outcome.acknowledged(),
            status: TriggerEventStatus::from(outcome.status) as i32,
            error: outcome.errors,
            transaction_id: Some(outcome.transaction_id),
        }
    }
}
