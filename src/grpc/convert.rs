//! Conversions shared by the gRPC services.

/// The helpers that lived here before `crate::wire`; `src/grpc/workflows.rs` and
/// `tests/api/engine/in_app.rs` still import them from this path.
pub use crate::wire::{format_timestamp, json_to_struct, struct_to_json};
