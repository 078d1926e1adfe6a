//! Herald: a notification delivery service. gRPC and REST on one port, PostgreSQL-backed.

pub mod app;
pub mod auth;
pub mod bootstrap;
pub mod config;
pub mod crypto;
pub mod db;
pub mod domain;
pub mod engine;
pub mod error;
pub mod grpc;
pub mod health;
pub mod idempotency;
pub mod metrics;
pub mod openapi;
pub mod proto;
pub mod providers;
pub mod rate_limit;
pub mod rest;
pub mod server;
pub mod startup;
pub mod telemetry;
pub mod wire;
pub mod workflow;
