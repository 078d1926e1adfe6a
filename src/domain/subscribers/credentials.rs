//! Upserting a subscriber's credentials for one chat or push provider integration.

use std::collections::BTreeSet;

use chrono::Utc;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use super::{credential_providers, not_found, ChannelCredentials, ChannelSetting, Subscriber, MAX_DEVICE_TOKENS};
use crate::db::schema::{integrations, subscribers};
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// Credentials to merge into one channel entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CredentialsUpdate {
    pub provider_id: String,
    pub integration_identifier: Option<String>,
    /// Required: an update without credentials is a 422.
    pub credentials: Option<ChannelCredentials>,
    /// The credential fields the client sent, by their JSON name (`deviceTokens`, `webhookUrl`, …);
    /// a sent field without a value is cleared. Empty: every field with a value counts as sent.
    pub supplied: BTreeSet<String>,
}

impl CredentialsUpdate {
    fn is_supplied(&self, field: &str, has_value: bool) -> bool {
        if self.supplied.is_empty() {
            has_value
        } else {
            self.supplied.contains(field)
        }
    }

    /// `stored` with this update applied: supplied fields overwrite (device tokens replace the list),
    /// the others stay.
    fn merge_into(&self, stored: ChannelCredentials) -> ChannelCredentials {
        let no_fields = ChannelCredentials::default();
        let update = self.credentials.as_ref().unwrap_or(&no_fields);
        let pick = |field: &str, new: &Option<String>, old: Option<String>| {
            if self.is_supplied(field, new.is_some()) {
                new.clone()
            } else {
                old
            }
        };
        ChannelCredentials {
            webhook_url: pick("webhookUrl", &update.webhook_url, stored.webhook_url),
            channel: pick("channel", &update.channel, stored.channel),
            device_tokens: if self.is_supplied("deviceTokens", !update.device_tokens.is_empty()) {
                deduplicated(&update.device_tokens)
            } else {
                stored.device_tokens
            },
            alert_uid: pick("alertUid", &update.alert_uid, stored.alert_uid),
            title: pick("title", &update.title, stored.title),
            image_url: pick("imageUrl", &update.image_url, stored.image_url),
            state: pick("state", &update.state, stored.state),
            external_url: pick("externalUrl", &update.external_url, stored.external_url),
        }
    }
}

/// Tokens in first-seen order, each once.
fn deduplicated(tokens: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    tokens.iter().filter(|token| seen.insert(token.as_str())).cloned().collect()
}

fn validate(update: &CredentialsUpdate) -> AppResult<()> {
    let mut validator = Validator::new();
    if !credential_providers().any(|provider| provider == update.provider_id) {
        let allowed: Vec<&str> = credential_providers().collect();
        validator.reject(
            "providerId",
            format!("providerId must be one of {}", allowed.join(", ")),
            update.provider_id.as_str(),
        );
    }
    validator.check(update.credentials.is_some(), "credentials", "credentials is required", Value::Null);
    let no_fields = ChannelCredentials::default();
    let credentials = update.credentials.as_ref().unwrap_or(&no_fields);
    let tokens = deduplicated(&credentials.device_tokens);
    validator.check(
        tokens.len() <= MAX_DEVICE_TOKENS,
        "credentials.deviceTokens",
        format!("at most {MAX_DEVICE_TOKENS} distinct device tokens"),
        tokens.len(),
    );
    validator.check(
        tokens.iter().all(|token| !token.trim().is_empty()),
        "credentials.deviceTokens",
        "device tokens must not be empty",
        serde_json::json!(credentials.device_tokens),
    );
    if let Some(webhook_url) = &credentials.webhook_url {
        let is_web_url = url::Url::parse(webhook_url).is_ok_and(|url| matches!(url.scheme(), "http" | "https"));
        validator.check(
            is_web_url,
            "credentials.webhookUrl",
            "webhookUrl must be an http or https URL",
            webhook_url.as_str(),
        );
    }
    validator.finish()
}

/// Merges `update` into the subscriber's channel entry for (provider, integration), creating it if
/// needed. The integration must exist, be active and not deleted in the environment.
pub async fn upsert_credentials(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
    update: CredentialsUpdate,
) -> AppResult<Subscriber> {
    validate(&update)?;
    conn.transaction::<_, AppError, _>(async |conn| {
        let subscriber = subscribers::table
            .filter(subscribers::environment_id.eq(tenant.environment_id))
            .filter(subscribers::subscriber_id.eq(subscriber_id))
            .filter(diesel::dsl::not(subscribers::deleted))
            .select(Subscriber::as_select())
            .for_update()
            .first(conn)
            .await
            .optional()?
            .ok_or_else(|| not_found(subscriber_id))?;
        let (integration_id, integration_identifier) = active_integration(conn, tenant, &update).await?;

        let mut channels = subscriber.channel_settings()?;
        let position = channels
            .iter()
            .position(|entry| entry.provider_id == update.provider_id && entry.integration_id == integration_id);
        let stored = position.map(|index| channels[index].credentials.clone()).unwrap_or_default();
        let entry = ChannelSetting {
            provider_id: update.provider_id.clone(),
            integration_identifier: Some(integration_identifier),
            integration_id,
            credentials: update.merge_into(stored),
        };
        match position {
            // Nothing to write: no new version either.
            Some(index) if channels[index] == entry => return Ok(subscriber),
            Some(index) => channels[index] = entry,
            None => channels.push(entry),
        }
        let channels = serde_json::to_value(&channels).map_err(AppError::internal)?;
        Ok(diesel::update(subscribers::table.find(subscriber.id))
            .set((
                subscribers::channels.eq(channels),
                subscribers::version.eq(subscribers::version + 1),
                subscribers::updated_at.eq(Utc::now()),
            ))
            .returning(Subscriber::as_returning())
            .get_result(conn)
            .await?)
    })
    .await
}

/// The integration the credentials belong to: of that provider (and identifier, when given),
/// active and not deleted; the oldest when several qualify.
async fn active_integration(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    update: &CredentialsUpdate,
) -> AppResult<(Uuid, String)> {
    let mut query = integrations::table
        .filter(integrations::environment_id.eq(tenant.environment_id))
        .filter(integrations::provider_id.eq(update.provider_id.clone()))
        .filter(integrations::active)
        .filter(diesel::dsl::not(integrations::deleted))
        .into_boxed();
    if let Some(identifier) = &update.integration_identifier {
        query = query.filter(integrations::identifier.eq(identifier.clone()));
    }
    let found = query
        .order(integrations::created_at.asc())
        .select((integrations::id, integrations::identifier))
        .first::<(Uuid, String)>(conn)
        .await
        .optional()?;
    found.ok_or_else(|| {
        let named = match &update.integration_identifier {
            Some(identifier) => format!("integration {identifier} of provider {}", update.provider_id),
            None => format!("integration of provider {}", update.provider_id),
        };
        AppError::BadRequest(format!("No active {named} found in this environment"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> ChannelCredentials {
        ChannelCredentials {
            webhook_url: Some("https://old.example/hook".into()),
            device_tokens: vec!["a".into(), "b".into()],
            title: Some("kept".into()),
            ..Default::default()
        }
    }

    #[test]
    fn device_tokens_replace_and_other_fields_merge() {
        let update = CredentialsUpdate {
            credentials: Some(ChannelCredentials {
                device_tokens: vec!["c".into(), "c".into(), "d".into()],
                state: Some("firing".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let merged = update.merge_into(stored());
        assert_eq!(merged.device_tokens, ["c", "d"]);
        assert_eq!(merged.webhook_url.as_deref(), Some("https://old.example/hook"));
        assert_eq!(merged.title.as_deref(), Some("kept"));
        assert_eq!(merged.state.as_deref(), Some("firing"));
    }

    #[test]
    fn a_supplied_empty_token_list_or_null_field_clears() {
        let update = CredentialsUpdate {
            credentials: Some(ChannelCredentials::default()),
            supplied: ["deviceTokens".to_string(), "title".to_string()].into(),
            ..Default::default()
        };
        let merged = update.merge_into(stored());
        assert!(merged.device_tokens.is_empty());
        assert_eq!(merged.title, None);
        assert_eq!(merged.webhook_url.as_deref(), Some("https://old.example/hook"));
    }

    #[test]
    fn more_than_100_distinct_tokens_or_an_unknown_provider_is_a_422() {
        let update = CredentialsUpdate {
            provider_id: "carrier-pigeon".into(),
            credentials: Some(ChannelCredentials {
                device_tokens: (0..101).map(|i| format!("t{i}")).collect(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let Err(AppError::Validation(errors)) = validate(&update) else { panic!("expected a 422") };
        let paths: Vec<&str> = errors.iter().map(|error| error.path.as_str()).collect();
        assert_eq!(paths, ["providerId", "credentials.deviceTokens"]);
    }

    #[test]
    fn credentials_are_required() {
        let update = CredentialsUpdate { provider_id: "fcm".into(), ..Default::default() };
        let Err(AppError::Validation(errors)) = validate(&update) else { panic!("expected a 422") };
        assert_eq!(errors[0].path, "credentials");
    }

    #[test]
    fn the_twenty_credential_providers_are_the_chat_and_push_ones_and_appio() {
        let providers: Vec<&str> = credential_providers().collect();
        assert_eq!(providers.len(), 20);
        for provider in ["slack", "svc-slack", "grafana-on-call", "fcm", "pusher-beams", "appio"] {
            assert!(providers.contains(&provider), "{provider}");
        }
        assert!(!providers.contains(&"sendgrid"));
    }

    #[test]
    fn duplicates_do_not_count_towards_the_limit() {
        let update = CredentialsUpdate {
            provider_id: "fcm".into(),
            credentials: Some(ChannelCredentials { device_tokens: vec!["same".into(); 150], ..Default::default() }),
            ..Default::default()
        };
        assert!(validate(&update).is_ok());
    }
}
