//! Subscribers, their channel credentials and preferences over REST and gRPC.

mod credentials;
mod fixtures;
mod grpc;
mod preferences;
mod profile;
mod search;
