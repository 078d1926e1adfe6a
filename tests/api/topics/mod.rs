//! Topics: CRUD and membership over REST and gRPC, and triggers to topics fanned out by the engine.

mod crud;
pub mod fanout;
mod grpc;
