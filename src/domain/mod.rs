//! Business rules, below the gRPC layer: the REST and gRPC fronts both end up here.

pub mod activity;
pub mod idempotency_keys;
pub mod inbox;
pub mod integrations;
pub mod limits;
pub mod messages;
pub mod preferences;
pub mod seed;
pub mod subscribers;
pub mod tenancy;
pub mod topics;
pub mod validation;
pub mod workflows;
