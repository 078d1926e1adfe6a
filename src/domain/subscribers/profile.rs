//! Creating, updating and deleting subscribers, with validation of the profile fields.

use chrono::Utc;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use super::{not_found, Subscriber};
use crate::db::schema::subscribers;
use crate::domain::tenancy::Tenant;
use crate::domain::topics;
use crate::domain::validation::Validator;
use crate::error::{violated_unique_constraint, AppError, AppResult};

/// A subscriber to create.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewSubscriber {
    pub subscriber_id: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub avatar: Option<String>,
    pub locale: Option<String>,
    pub timezone: Option<String>,
    pub data: Option<Value>,
}

/// What a PATCH does to one field: leave it alone (absent), clear it (`null`), or set it.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Patch<T> {
    #[default]
    Keep,
    Clear,
    Set(T),
}

impl<T> Patch<T> {
    /// The value being set, if any.
    pub fn value(&self) -> Option<&T> {
        match self {
            Patch::Set(value) => Some(value),
            _ => None,
        }
    }

    /// Diesel's changeset form: `None` skips the column, `Some(None)` writes NULL.
    fn into_change(self) -> Option<Option<T>> {
        match self {
            Patch::Keep => None,
            Patch::Clear => Some(None),
            Patch::Set(value) => Some(Some(value)),
        }
    }

    fn is_keep(&self) -> bool {
        matches!(self, Patch::Keep)
    }
}

/// A partial update of a subscriber's profile; `data` is replaced whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfilePatch {
    pub first_name: Patch<String>,
    pub last_name: Patch<String>,
    pub email: Patch<String>,
    pub phone: Patch<String>,
    pub avatar: Patch<String>,
    pub locale: Patch<String>,
    pub timezone: Patch<String>,
    pub data: Patch<Value>,
}

#[derive(AsChangeset)]
#[diesel(table_name = subscribers)]
struct ProfileChanges {
    first_name: Option<Option<String>>,
    last_name: Option<Option<String>>,
    email: Option<Option<String>>,
    phone: Option<Option<String>>,
    avatar: Option<Option<String>>,
    locale: Option<Option<String>>,
    timezone: Option<Option<String>>,
    data: Option<Option<Value>>,
}

/// Validates the profile fields every write checks: email, IANA timezone, locale, avatar URL.
fn validate_profile(
    validator: &mut Validator,
    email: Option<&String>,
    timezone: Option<&String>,
    locale: Option<&String>,
    avatar: Option<&String>,
) {
    validate_profile_at(validator, "", email, timezone, locale, avatar);
}

/// [`validate_profile`] for a subscriber nested in a larger request: field paths start with `prefix`
/// (`to.0.` for a trigger recipient).
pub(crate) fn validate_profile_at(
    validator: &mut Validator,
    prefix: &str,
    email: Option<&String>,
    timezone: Option<&String>,
    locale: Option<&String>,
    avatar: Option<&String>,
) {
    if let Some(email) = email {
        validator.check(
            email_address::EmailAddress::is_valid(email),
            &format!("{prefix}email"),
            "email must be an email address",
            email.as_str(),
        );
    }
    if let Some(timezone) = timezone {
        validator.check(
            timezone.parse::<chrono_tz::Tz>().is_ok(),
            &format!("{prefix}timezone"),
            "timezone must be an IANA timezone such as Europe/Paris",
            timezone.as_str(),
        );
    }
    if let Some(locale) = locale {
        validator.check(
            is_locale(locale),
            &format!("{prefix}locale"),
            "locale must be a language tag such as en or en-US",
            locale.as_str(),
        );
    }
    if let Some(avatar) = avatar {
        let is_web_url = url::Url::parse(avatar).is_ok_and(|url| matches!(url.scheme(), "http" | "https"));
        validator.check(is_web_url, &format!("{prefix}avatar"), "avatar must be an http or https URL", avatar.as_str());
    }
}

/// A BCP 47-style tag: a 2–3 letter language, then 2–8 character alphanumeric subtags (`-` or `_`).
fn is_locale(tag: &str) -> bool {
    let mut parts = tag.split(['-', '_']);
    let language_ok = parts
        .next()
        .is_some_and(|language| (2..=3).contains(&language.len()) && language.chars().all(|c| c.is_ascii_alphabetic()));
    language_ok && parts.all(|part| (2..=8).contains(&part.len()) && part.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Creates a subscriber; an existing live `subscriberId` → 409.
pub async fn create_subscriber(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    new: NewSubscriber,
) -> AppResult<Subscriber> {
    let mut validator = Validator::new();
    validator.check(
        !new.subscriber_id.trim().is_empty(),
        "subscriberId",
        "subscriberId must not be empty",
        new.subscriber_id.as_str(),
    );
    validate_profile(
        &mut validator,
        new.email.as_ref(),
        new.timezone.as_ref(),
        new.locale.as_ref(),
        new.avatar.as_ref(),
    );
    validator.finish()?;

    let now = Utc::now();
    let inserted = diesel::insert_into(subscribers::table)
        .values((
            subscribers::id.eq(Uuid::now_v7()),
            subscribers::environment_id.eq(tenant.environment_id),
            subscribers::organization_id.eq(tenant.organization_id),
            subscribers::subscriber_id.eq(&new.subscriber_id),
            subscribers::first_name.eq(&new.first_name),
            subscribers::last_name.eq(&new.last_name),
            subscribers::email.eq(&new.email),
            subscribers::phone.eq(&new.phone),
            subscribers::avatar.eq(&new.avatar),
            subscribers::locale.eq(&new.locale),
            subscribers::timezone.eq(&new.timezone),
            subscribers::data.eq(&new.data),
            subscribers::created_at.eq(now),
            subscribers::updated_at.eq(now),
        ))
        .returning(Subscriber::as_returning())
        .get_result(conn)
        .await;
    match inserted {
        Ok(subscriber) => Ok(subscriber),
        Err(error) if violated_unique_constraint(&error).is_some() => {
            Err(AppError::Conflict(format!("Subscriber with subscriberId {} already exists", new.subscriber_id)))
        }
        Err(error) => Err(error.into()),
    }
}

/// Applies `patch` to a live subscriber; `__v` and `updatedAt` move when anything is written.
pub async fn update_subscriber(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
    patch: ProfilePatch,
) -> AppResult<Subscriber> {
    let mut validator = Validator::new();
    validate_profile(
        &mut validator,
        patch.email.value(),
        patch.timezone.value(),
        patch.locale.value(),
        patch.avatar.value(),
    );
    validator.finish()?;

    let unchanged = [
        patch.first_name.is_keep(),
        patch.last_name.is_keep(),
        patch.email.is_keep(),
        patch.phone.is_keep(),
        patch.avatar.is_keep(),
        patch.locale.is_keep(),
        patch.timezone.is_keep(),
        patch.data.is_keep(),
    ];
    if unchanged.iter().all(|&keep| keep) {
        return super::get_subscriber(conn, tenant, subscriber_id).await;
    }
    let changes = ProfileChanges {
        first_name: patch.first_name.into_change(),
        last_name: patch.last_name.into_change(),
        email: patch.email.into_change(),
        phone: patch.phone.into_change(),
        avatar: patch.avatar.into_change(),
        locale: patch.locale.into_change(),
        timezone: patch.timezone.into_change(),
        data: patch.data.into_change(),
    };
    diesel::update(subscribers::table)
        .filter(subscribers::environment_id.eq(tenant.environment_id))
        .filter(subscribers::subscriber_id.eq(subscriber_id))
        .filter(diesel::dsl::not(subscribers::deleted))
        .set((changes, subscribers::version.eq(subscribers::version + 1), subscribers::updated_at.eq(Utc::now())))
        .returning(Subscriber::as_returning())
        .get_result(conn)
        .await
        .optional()?
        .ok_or_else(|| not_found(subscriber_id))
}

/// Soft-deletes a live subscriber: hidden from reads and search, its messages and events kept.
pub async fn delete_subscriber(conn: &mut AsyncPgConnection, tenant: Tenant, subscriber_id: &str) -> AppResult<()> {
    let now = Utc::now();
    conn.transaction::<_, AppError, _>(async |conn| {
        let deleted: Option<Uuid> = diesel::update(subscribers::table)
            .filter(subscribers::environment_id.eq(tenant.environment_id))
            .filter(subscribers::subscriber_id.eq(subscriber_id))
            .filter(diesel::dsl::not(subscribers::deleted))
            .set((subscribers::deleted.eq(true), subscribers::deleted_at.eq(now), subscribers::updated_at.eq(now)))
            .returning(subscribers::id)
            .get_result(conn)
            .await
            .optional()?;
        let deleted = deleted.ok_or_else(|| not_found(subscriber_id))?;
        topics::remove_memberships_of(conn, deleted).await
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_are_language_tags() {
        for valid in ["en", "en-US", "pt_BR", "zh-Hant-TW", "fil"] {
            assert!(is_locale(valid), "{valid}");
        }
        for invalid in ["", "e", "english", "en-", "en US", "12"] {
            assert!(!is_locale(invalid), "{invalid}");
        }
    }

    #[test]
    fn every_invalid_profile_field_is_reported() {
        let mut validator = Validator::new();
        let (email, timezone, locale, avatar) = (
            "not-an-email".to_string(),
            "Mars/Olympus".to_string(),
            "english".to_string(),
            "ftp://x/y.png".to_string(),
        );
        validate_profile(&mut validator, Some(&email), Some(&timezone), Some(&locale), Some(&avatar));
        let Err(AppError::Validation(errors)) = validator.finish() else { panic!("expected a 422") };
        let paths: Vec<&str> = errors.iter().map(|error| error.path.as_str()).collect();
        assert_eq!(paths, ["email", "timezone", "locale", "avatar"]);
    }

    #[test]
    fn valid_profile_fields_pass() {
        let mut validator = Validator::new();
        let (email, timezone, locale, avatar) = (
            "ada@example.com".to_string(),
            "Europe/Paris".to_string(),
            "fr-FR".to_string(),
            "https://example.com/a.png".to_string(),
        );
        validate_profile(&mut validator, Some(&email), Some(&timezone), Some(&locale), Some(&avatar));
        assert!(validator.finish().is_ok());
    }
}
