//! The trigger and the delivery engine, end to end: real server, real workers, real Postgres and real
//! local receivers for providers.

mod channels;
mod chat_providers;
mod claim;
mod crash;
mod dead_destinations;
mod delay;
mod delivery;
mod digest;
mod drain;
mod faults;
pub mod fixtures;
mod in_app;
mod ingest;
mod outbound;
mod push_providers;
pub mod receiver;
mod retention;
mod schedule;
mod snapshots;
mod trigger;
mod trigger_stream;
mod wake;
