//! Fan-in of inbox events across processes: one `LISTEN` connection per process (not per client
//! connection), dispatching each notification (`<subscriber id>:<seq>`) to the streams of that
//! subscriber in this process through a map of watch channels. A notification only wakes a stream;
//! the stream reads the log itself, so a notification lost while the listener reconnects costs
//! latency (until the stream's poll), never an event.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use futures_util::StreamExt;
use tokio::sync::watch;
use uuid::Uuid;

use super::log::CHANNEL_SQL;
use crate::db::DbPool;
use crate::error::AppResult;

/// How long the listener waits before reconnecting after losing its connection.
const RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// This process's followers of inbox events, by subscriber (internal id).
#[derive(Clone)]
pub struct InboxFeed {
    /// The highest sequence number notified per followed subscriber; entries live while followed.
    followers: Arc<Mutex<HashMap<Uuid, watch::Sender<i64>>>>,
    /// Set when the process stops serving: every stream ends, and its client resumes elsewhere, rather
    /// than holding the drain until its timeout.
    closing: Arc<watch::Sender<bool>>,
}

impl Default for InboxFeed {
    fn default() -> Self {
        Self { followers: Arc::default(), closing: Arc::new(watch::channel(false).0) }
    }
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
    /// The feed of a process, with its listener started on `pool`.
    pub fn start(pool: DbPool) -> Self {
        let feed = Self::default();
        tokio::spawn(feed.clone().listen(pool));
        feed
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

    async fn listen(self, pool: DbPool) {
        loop {
            if let Err(error) = self.listen_once(&pool).await {
                tracing::warn!(%error, "inbox event listener lost its connection; streams poll until it is back");
            }
            tokio::time::sleep(RECONNECT_DELAY).await;
            self.wake_all();
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
        let mut notifications = std::pin::pin!(conn.notifications_stream());
        while let Some(notification) = notifications.next().await {
            self.dispatch(&notification?.payload);
        }
        Ok(())
    }
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
        let feed = InboxFeed::default();
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
