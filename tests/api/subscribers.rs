//! Subscribers, their channel credentials and preferences over REST and gRPC.

mod credentials;
pub mod fixtures;
mod grpc;
mod preferences;
mod profile;
mod search;
