//! Fan-in of inbox events across processes: one `LISTEN` connection per process (not per client
//! connection), dispatching each notification (`<subscriber id>:<seq>`) to the streams of that
//! subscriber in this process through a map of watch channels. A notification only wakes a stream;
//! the stream reads the log itself, so a notification lost (the listener reconnecting, a writer
//! killed between its commit and its announcement) costs latency (until the stream's poll), never an
//! event.
//!
//! Events are announced in one of two ways: by a `NOTIFY` queued in the writing transaction
//! ([`super::log::record_inbox_events`]), or, for the worker's arrivals ([`super::log::arrival_bumps`]),
//! after the commit by [`InboxFeed::announce`]: this process's streams are woken at once, and one task
//! sends the `NOTIFY`s for the others, many in one statement.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use diesel::sql_types::{Array, Text};
use diesel_async::{AsyncConnection, RunQueryDsl};
use futures_util::StreamExt;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

use super::log::{InboxBump, CHANNEL_SQL};
use crate::db::DbPool;
use crate::error::{AppError, AppResult};

/// How long the listener waits before reconnecting after losing its connection.
const RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// This process's followers of inbox events, by subscriber (internal id).
#[derive(Debug, Clone)]
pub struct InboxFeed {
    /// The highest sequence number notified per followed subscriber; entries live while followed.
    followers: Arc<Mutex<HashMap<Uuid, watch::Sender<i64>>>>,
    /// Set when the process stops serving: every stream ends, and its client resumes elsewhere, rather
    /// than holding the drain until its timeout.
    closing: Arc<watch::Sender<bool>>,
    /// Events committed by this process, for the announcer task to `NOTIFY` to the other processes.
    unannounced: mpsc::UnboundedSender<Vec<InboxBump>>,
}

/// A stream's subscription to its subscriber's notifications; dropping it unfollows.
pub struct Following {
    feed: InboxFeed,
    subscriber: Uuid,
    pub wake: watch::Receiver<i64>,
    /// Turns true when the process stops serving.
    pub closing: watch::Receiver<bool>,
}

impl InboxFeed {
    /// The feed of a process, with its announcer task started on `pool`. A process that serves
    /// streams also starts [`InboxFeed::listen`].
    pub fn start(pool: DbPool) -> Self {
        let (feed, unannounced) = Self::new();
        tokio::spawn(announce_to_other_processes(pool, unannounced));
        feed
    }

    fn new() -> (Self, mpsc::UnboundedReceiver<Vec<InboxBump>>) {
        let (unannounced, receiver) = mpsc::unbounded_channel();
        let feed = Self { followers: Arc::default(), closing: Arc::new(watch::channel(false).0), unannounced };
        (feed, receiver)
    }

    /// Starts this process's listener on `pool`: its streams then hear of events written by any process.
    pub fn listen(&self, pool: DbPool) {
        tokio::spawn(self.clone().keep_listening(pool));
    }

    /// Wakes the streams following `bumps`' subscribers, here at once and in other processes through
    /// the announcer task. Call after the commit that wrote their events.
    pub fn announce(&self, bumps: Vec<InboxBump>) {
        if bumps.is_empty() {
            return;
        }
        for bump in &bumps {
            self.wake(bump.subscriber, bump.seq);
        }
        // Only fails once the announcer task is gone (the runtime shutting down).
        let _ = self.unannounced.send(bumps);
    }

    /// Follows `subscriber`: the returned receiver changes whenever an event of it is notified.
    pub fn follow(&self, subscriber: Uuid) -> Following {
        let mut followers = self.followers.lock().expect("the feed's lock is never poisoned");
        let wake = followers.entry(subscriber).or_insert_with(|| watch::channel(0).0).subscribe();
        Following { feed: self.clone(), subscriber, wake, closing: self.closing.subscribe() }
    }

    /// Ends every stream of this process (the server is stopping).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    fn dispatch(&self, payload: &str) {
        let Some((subscriber, seq)) = payload.split_once(':') else { return };
        let (Ok(subscriber), Ok(seq)) = (Uuid::try_parse(subscriber), seq.parse::<i64>()) else { return };
        self.wake(subscriber, seq);
    }

    fn wake(&self, subscriber: Uuid, seq: i64) {
        let followers = self.followers.lock().expect("the feed's lock is never poisoned");
        if let Some(sender) = followers.get(&subscriber) {
            sender.send_if_modified(|last| {
                let newer = seq > *last;
                *last = (*last).max(seq);
                newer
            });
        }
    }

    /// Wakes every stream: after the listener lost its connection, notifications may have been missed.
    fn wake_all(&self) {
        let followers = self.followers.lock().expect("the feed's lock is never poisoned");
        for sender in followers.values() {
            sender.send_modify(|_| {});
        }
    }

    async fn keep_listening(self, pool: DbPool) {
        loop {
            if let Err(error) = self.listen_once(&pool).await {
                tracing::warn!(%error, "inbox event listener lost its connection; streams poll until it is back");
            }
            tokio::time::sleep(RECONNECT_DELAY).await;
        }
    }

    async fn listen_once(&self, pool: &DbPool) -> AppResult<()> {
        #[derive(diesel::QueryableByName)]
        struct Channel {
            #[diesel(sql_type = Text)]
            name: String,
        }
        let mut conn = pool.get().await?;
        let channel: Channel = diesel::sql_query(format!("SELECT {CHANNEL_SQL} AS name")).get_result(&mut conn).await?;
        diesel::sql_query(format!("LISTEN \"{}\"", channel.name)).execute(&mut conn).await?;
        // Listening again after a lost connection: what was notified meanwhile is unknown. Woken once
        // the LISTEN holds, every stream reads what it missed and nothing notified after slips between.
        self.wake_all();
        let mut notifications = std::pin::pin!(conn.notifications_stream());
        while let Some(notification) = notifications.next().await {
            self.dispatch(&notification?.payload);
        }
        Ok(())
    }
}

/// Sends the `NOTIFY`s of the events announced in this process, all those waiting in one statement
/// (the latest number per subscriber), committed without waiting for its flush: a notification lost
/// in a crash only delays a stream until its poll. A failure drops them for the same reason.
async fn announce_to_other_processes(pool: DbPool, mut unannounced: mpsc::UnboundedReceiver<Vec<InboxBump>>) {
    while let Some(bumps) = unannounced.recv().await {
        let mut latest: HashMap<Uuid, i64> = HashMap::new();
        let mut add = |bumps: Vec<InboxBump>| {
            for bump in bumps {
                let seq = latest.entry(bump.subscriber).or_default();
                *seq = (*seq).max(bump.seq);
            }
        };
        add(bumps);
        while let Ok(more) = unannounced.try_recv() {
            add(more);
        }
        let payloads: Vec<String> = latest.iter().map(|(subscriber, seq)| format!("{subscriber}:{seq}")).collect();
        if let Err(error) = notify(&pool, &payloads).await {
            tracing::warn!(%error, "could not notify other processes of inbox events; their streams poll");
        }
    }
}

async fn notify(pool: &DbPool, payloads: &[String]) -> AppResult<()> {
    let mut conn = pool.get().await?;
    conn.transaction::<_, AppError, _>(async |conn| {
        diesel::sql_query("SET LOCAL synchronous_commit = off").execute(conn).await?;
        diesel::sql_query(format!("SELECT pg_notify({CHANNEL_SQL}, payload) FROM unnest($1::text[]) payload"))
            .bind::<Array<Text>, _>(payloads)
            .execute(conn)
            .await?;
        Ok(())
    })
    .await
}

impl Drop for Following {
    fn drop(&mut self) {
        let mut followers = self.feed.followers.lock().expect("the feed's lock is never poisoned");
        // The last follower of the subscriber (this one) removes the entry.
        if followers.get(&self.subscriber).is_some_and(|sender| sender.receiver_count() <= 1) {
            followers.remove(&self.subscriber);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_wakes_only_its_subscribers_followers_and_the_last_one_out_unfollows() {
        let (feed, _unannounced) = InboxFeed::new();
        let (alice, bob) = (Uuid::now_v7(), Uuid::now_v7());
        let mut first = feed.follow(alice);
        let second = feed.follow(alice);
        let other = feed.follow(bob);
        feed.dispatch(&format!("{alice}:7"));
        feed.dispatch("garbage");
        assert!(first.wake.has_changed().unwrap());
        assert_eq!(*first.wake.borrow_and_update(), 7);
        assert!(!other.wake.has_changed().unwrap());
        // An older number (a notification overtaken by a later one) wakes nobody.
        feed.dispatch(&format!("{alice}:5"));
        assert!(!first.wake.has_changed().unwrap());
        drop(second);
        assert!(feed.followers.lock().unwrap().contains_key(&alice));
        drop(first);
        assert!(!feed.followers.lock().unwrap().contains_key(&alice));
    }
}
