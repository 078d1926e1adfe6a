//! The inbox's real-time events, which a reconnecting client never misses.
//!
//! - [`log`]: every change of a subscriber's in-app messages (a new one, a mark) writes an
//!   `inbox_events` row, with the subscriber's next sequence number and its exact unread and unseen
//!   counts, in the transaction of the change (a new one's by the trigger on `messages` that keeps the
//!   counts), and a `NOTIFY` that PostgreSQL delivers at its commit (the worker's commits announce
//!   their arrivals just after instead: [`log::arrival_bumps`]).
//! - [`feed`]: one `LISTEN` connection per process passes those notifications on to the streams of
//!   this process that follow the subscriber; events committed by this process wake them directly.
//! - [`stream`]: one stream per client connection (SSE or gRPC), reading its subscriber's log from
//!   the client's last event on, woken by the feed and polling as a fallback.
//!
//! `docs/inbox.md` states the resume guarantee.

mod feed;
mod log;
mod stream;

pub use feed::InboxFeed;
pub use log::{arrival_bumps, record_inbox_events, InboxBump, InboxChange, InboxMessage};
pub use stream::{inbox_events, inbox_position, InboxCounts, InboxEvent, InboxEventKind, InboxPosition};
