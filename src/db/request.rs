//! A request's own transaction. A request holding an `Idempotency-Key` runs its writes and the storing
//! of its answer in one transaction (`crate::idempotency`), so a crash loses both or neither: the
//! connection of that transaction is put in a task-local scope for the request, and every connection
//! the request asks for ([`Connection::of_request_or`]) is that one.
//!
//! Inside the scope:
//! - a domain function's own `conn.transaction(…)` becomes a savepoint (diesel counts the depth), so
//!   its failure undoes its own statements and leaves the request's transaction usable;
//! - what must happen only once the writes are visible to others (waking the workers, dropping a cached
//!   definition) is handed to [`after_commit`] and runs after the commit, or never if the request
//!   rolls back;
//! - concurrent parts of one request (a bulk trigger's events) take the connection in turn.
//!
//! Outside a scope (a request without a key, a worker) nothing changes: a connection comes from the
//! pool and [`after_commit`] runs its work at once.

use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use diesel_async::{AnsiTransactionManager, AsyncPgConnection, TransactionManager};
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use super::{DbConn, DbPool};
use crate::error::AppResult;

/// Work to run once the request's transaction has committed.
type Deferred = Pin<Box<dyn Future<Output = ()> + Send>>;

#[derive(Clone)]
struct Scope {
    connection: Arc<AsyncMutex<DbConn>>,
    deferred: Arc<Mutex<Vec<Deferred>>>,
}

tokio::task_local! {
    static SCOPE: Scope;
}

/// A connection to run statements on: the request's own, inside its transaction, or a pooled one.
// A pooled connection is held inline as before this type existed (a checkout is a move of the same
// ~480 bytes); boxing it would add an allocation to every checkout for nothing.
#[allow(clippy::large_enum_variant)]
pub enum Connection {
    Pooled(DbConn),
    Request(OwnedMutexGuard<DbConn>),
}

impl Connection {
    /// The request's connection when the current request runs in a transaction of its own (waiting
    /// while another part of the request uses it), else one from `pool`.
    pub async fn of_request_or(pool: &DbPool) -> AppResult<Self> {
        match SCOPE.try_with(|scope| scope.connection.clone()) {
            Ok(connection) => Ok(Self::Request(connection.lock_owned().await)),
            Err(_) => Ok(Self::Pooled(pool.get().await?)),
        }
    }

    /// For reads that need not see the request's own writes (a cache filled on a miss): the
    /// request's connection when it is free, else one from `pool`. Never waits on the request's own
    /// connection, so a part of the request already holding it cannot wait for itself.
    pub async fn free_of_request_or(pool: &DbPool) -> AppResult<Self> {
        let held = SCOPE.try_with(|scope| scope.connection.clone().try_lock_owned());
        match held {
            Ok(Ok(guard)) => Ok(Self::Request(guard)),
            _ => Ok(Self::Pooled(pool.get().await?)),
        }
    }
}

impl Deref for Connection {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        match self {
            Self::Pooled(connection) => connection,
            Self::Request(connection) => connection,
        }
    }
}

impl DerefMut for Connection {
    fn deref_mut(&mut self) -> &mut AsyncPgConnection {
        match self {
            Self::Pooled(connection) => connection,
            Self::Request(connection) => connection,
        }
    }
}

/// Whether the current request runs in a transaction of its own.
pub fn in_request_transaction() -> bool {
    SCOPE.try_with(|_| ()).is_ok()
}

/// Runs `work` once the current request's transaction commits (dropped if it rolls back), or at once
/// outside such a request.
pub async fn after_commit(work: impl Future<Output = ()> + Send + 'static) {
    let deferred = SCOPE.try_with(|scope| scope.deferred.clone());
    match deferred {
        Ok(deferred) => deferred.lock().expect("never poisoned").push(Box::pin(work)),
        Err(_) => work.await,
    }
}

/// An open transaction on one connection, for one request.
pub struct RequestTransaction {
    scope: Scope,
}

impl RequestTransaction {
    /// Begins a transaction on `connection`.
    pub async fn begin(mut connection: DbConn) -> AppResult<Self> {
        AnsiTransactionManager::begin_transaction(&mut *connection).await?;
        Ok(Self { scope: Scope { connection: Arc::new(AsyncMutex::new(connection)), deferred: Default::default() } })
    }

    /// The transaction's connection, for the caller's own statements.
    pub async fn connection(&self) -> Connection {
        Connection::Request(self.scope.connection.clone().lock_owned().await)
    }

    /// Runs `request` with this transaction as its connection, inside a savepoint that the caller
    /// then keeps ([`Self::keep_savepoint`]) or undoes ([`Self::undo_savepoint`]).
    pub async fn run<T>(&self, request: impl Future<Output = T>) -> AppResult<T> {
        AnsiTransactionManager::begin_transaction(&mut *self.connection().await).await?;
        Ok(SCOPE.scope(self.scope.clone(), request).await)
    }

    /// Keeps what the request wrote (releases its savepoint).
    pub async fn keep_savepoint(&self) -> AppResult<()> {
        Ok(AnsiTransactionManager::commit_transaction(&mut *self.connection().await).await?)
    }

    /// Undoes what the request wrote, and the work it deferred; the transaction goes on.
    pub async fn undo_savepoint(&self) -> AppResult<()> {
        AnsiTransactionManager::rollback_transaction(&mut *self.connection().await).await?;
        self.scope.deferred.lock().expect("never poisoned").clear();
        Ok(())
    }

    /// Commits, then runs the work deferred to the commit.
    pub async fn commit(self) -> AppResult<()> {
        AnsiTransactionManager::commit_transaction(&mut *self.connection().await).await?;
        let deferred = std::mem::take(&mut *self.scope.deferred.lock().expect("never poisoned"));
        for work in deferred {
            work.await;
        }
        Ok(())
    }

    /// Rolls back all of it, savepoint included; the deferred work is dropped. A connection that
    /// cannot roll back is closed rather than handed back to the pool still inside the transaction
    /// (and still holding its locks).
    pub async fn rollback(self) {
        let mut connection = self.connection().await;
        while transaction_depth(&mut connection) > 0 {
            if let Err(error) = AnsiTransactionManager::rollback_transaction(&mut *connection).await {
                tracing::warn!(%error, "a request's transaction did not roll back; closing its connection");
                if let Connection::Request(guard) = connection {
                    drop(guard);
                    if let Ok(mutex) = Arc::try_unwrap(self.scope.connection) {
                        drop(DbConn::take(mutex.into_inner()));
                    }
                }
                return;
            }
        }
    }
}

/// How many transactions (the outer one and savepoints) are open on `connection`.
fn transaction_depth(connection: &mut AsyncPgConnection) -> u32 {
    let status = AnsiTransactionManager::transaction_manager_status_mut(connection);
    status.transaction_depth().ok().flatten().map_or(0, |depth| depth.get())
}
