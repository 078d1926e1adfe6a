//! Diesel table definitions. Tenancy tables live here; the domain tables in `schema_domain`.

pub use super::schema_domain::*;

diesel::table! {
    organizations (id) {
        id -> Uuid,
        name -> Text,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    environments (id) {
        id -> Uuid,
        organization_id -> Uuid,
        name -> Text,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        /// Public: names the environment to an inbox session.
        application_identifier -> Text,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Uuid,
        environment_id -> Uuid,
        key_hash -> Bytea,
        created_at -> Timestamptz,
        /// The key under the credential cipher; NULL for keys created before it was kept.
        key_encrypted -> Nullable<Bytea>,
    }
}

diesel::joinable!(environments -> organizations (organization_id));
diesel::joinable!(api_keys -> environments (environment_id));
diesel::allow_tables_to_appear_in_same_query!(organizations, environments, api_keys);
