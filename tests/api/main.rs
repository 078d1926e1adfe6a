//! End-to-end tests: real PostgreSQL, real HTTP and gRPC over loopback.

mod process;
mod support;

mod activity_fixtures;
mod fakes;

mod activity;
mod admin;
mod auth;
mod contention;
mod engine;
mod environments;
mod errors;
mod grpc_surface;
mod health;
mod idempotency;
mod inbox;
mod integrations;
mod limits;
mod messages;
mod metrics;
mod openapi;
mod providers;
mod rate_limits;
mod subscribers;
mod topics;
mod traces;
mod webhooks;
mod workflows;
mod zero_config;
