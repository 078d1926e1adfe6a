//! Opening an inbox session (`POST /v1/inbox/session`), as the reference service does it, with two
//! differences: the `subscriberHash` is compared in constant time, and an unknown subscriber is created
//! only when the in-app integration allows it (`inboxCreatesSubscribers`), not always.
//!
//! The hash is the hex HMAC-SHA256 of the subscriberId keyed with an API key of the environment, so a
//! customer's backend code carries over. Any of the environment's recoverable keys is accepted (a
//! customer rotating keys keeps working); keys created before keys were kept encrypted cannot be
//! recovered and so cannot serve: an environment with only such keys must issue a new one
//! (`herald admin create-api-key`) before turning `hmac` on.

use chrono::{DateTime, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::token::SessionTokens;
use super::{count_inbox_notifications, unread_filter, InboxSubscriber, INBOX_CHANNEL};
use crate::crypto::CredentialCipher;
use crate::domain::integrations::active_integrations_in;
use crate::domain::subscribers::{create_subscriber, find_subscriber, NewSubscriber};
use crate::domain::tenancy::{find_environment_by_application_identifier, recoverable_api_keys, Tenant};
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// A session request, out of its wire form.
#[derive(Debug, Clone, Default)]
pub struct SessionRequest {
    pub application_identifier: String,
    /// The subscriber; its profile fields are used only when the session creates it.
    pub subscriber: NewSubscriber,
    pub subscriber_hash: Option<String>,
}

/// An open session.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub token: String,
    pub expires_at: DateTime<Utc>,
    pub total_unread_count: i64,
    pub application_identifier: String,
}

/// Checks the request and issues a token for its subscriber.
pub async fn create_session(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tokens: &SessionTokens,
    request: SessionRequest,
) -> AppResult<Session> {
    let mut validator = Validator::new();
    validator.check(
        !request.application_identifier.is_empty(),
        "applicationIdentifier",
        "applicationIdentifier must not be empty",
        "",
    );
    validator.check(
        !request.subscriber.subscriber_id.trim().is_empty(),
        "subscriberId",
        "subscriberId (or subscriber.subscriberId) must not be empty",
        request.subscriber.subscriber_id.as_str(),
    );
    validator.finish()?;

    let environment = find_environment_by_application_identifier(conn, &request.application_identifier)
        .await?
        .ok_or_else(|| AppError::BadRequest("Please provide a valid application identifier".into()))?;
    let tenant = Tenant { organization_id: environment.organization_id, environment_id: environment.id };
    let integration = active_integrations_in(conn, cipher, &[environment.id])
        .await?
        .into_iter()
        .find(|integration| integration.row.channel == INBOX_CHANNEL)
        .ok_or_else(|| AppError::NotFound("The active in-app integration could not be found".into()))?;
    let setting = |name: &str| integration.credentials.get(name).and_then(Value::as_bool).unwrap_or(false);

    let subscriber_id = request.subscriber.subscriber_id.clone();
    if setting("hmac") {
        let keys = recoverable_api_keys(conn, cipher, environment.id).await?;
        if keys.is_empty() {
            return Err(AppError::BadRequest(
                "The in-app integration requires a subscriberHash, but no API key of this environment can \
                 check one (keys issued before Herald kept them encrypted): issue a new API key"
                    .into(),
            ));
        }
        let hash = request.subscriber_hash.as_deref().unwrap_or_default();
        if !keys.iter().any(|key| hash_matches(key, &subscriber_id, hash)) {
            return Err(AppError::Unauthenticated("Please provide a valid HMAC hash".into()));
        }
    }

    let subscriber = match find_subscriber(conn, tenant, &subscriber_id).await? {
        Some(subscriber) => subscriber,
        // In a savepoint of its own: the loser of a race goes on after its failed insert, which would
        // otherwise abort the transaction it runs in (a keyed request's).
        None if setting("inboxCreatesSubscribers") => match conn
            .transaction::<_, AppError, _>(async |conn| create_subscriber(conn, tenant, request.subscriber).await)
            .await
        {
            // Two sessions racing to create the same subscriber: the loser uses the winner's.
            Err(AppError::Conflict(_)) => find_subscriber(conn, tenant, &subscriber_id)
                .await?
                .ok_or_else(|| AppError::NotFound(format!("Subscriber {subscriber_id} not found")))?,
            created => created?,
        },
        None => return Err(AppError::NotFound(format!("Subscriber {subscriber_id} not found"))),
    };
    let inbox = InboxSubscriber { tenant, id: subscriber.id, subscriber_id: subscriber.subscriber_id };
    let total_unread_count = count_inbox_notifications(conn, &inbox, &[unread_filter()]).await?[0];
    let (token, expires_at) = tokens.issue(&inbox, Utc::now());
    Ok(Session { token, expires_at, total_unread_count, application_identifier: environment.application_identifier })
}

/// Whether `hash` is the hex HMAC-SHA256 of `subscriber_id` under `key`, compared in constant time
/// (`Mac::verify_slice`), upper- or lower-case hex alike.
fn hash_matches(key: &str, subscriber_id: &str, hash: &str) -> bool {
    let Ok(tag) = hex::decode(hash) else { return false };
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(subscriber_id.as_bytes());
    mac.verify_slice(&tag).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_hex_hmac_sha256_of_the_subscriber_id_keyed_with_the_api_key() {
        // Computed independently: Python's hmac.new(b"hk_key", b"ada", hashlib.sha256).hexdigest().
        let reference = "814808cd5490575a22c8f6d3eb7adf79d89cbe289e95c0e552118dd20a0c883c";
        assert!(hash_matches("hk_key", "ada", reference));
        assert!(hash_matches("hk_key", "ada", &reference.to_uppercase()));
        assert!(!hash_matches("hk_key", "bob", reference));
        assert!(!hash_matches("other", "ada", reference));
        assert!(!hash_matches("hk_key", "ada", "not hex"));
        assert!(!hash_matches("hk_key", "ada", ""));
    }
}
