//! End-to-end tests: real PostgreSQL, real HTTP and gRPC over loopback.

mod support;

mod admin;
mod auth;
mod environments;
mod errors;
mod grpc_surface;
mod integrations;
mod subscribers;
mod workflows;
mod zero_config;
