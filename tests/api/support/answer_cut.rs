//! A TCP relay in front of PostgreSQL that loses one answer. Once armed, the first statement whose text
//! holds `marker` and whose answer holds `needle` runs and commits on the server, but its answer never
//! reaches the client: the client's connection is closed instead, as when a network or a server fault
//! ends a connection between a commit and its answer. The client cannot tell whether it committed.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The end of an answer: PostgreSQL's ReadyForQuery message, whose one byte of transaction status
/// follows (`I` idle, `T` in a transaction, `E` in a failed one).
const READY_FOR_QUERY: &[u8] = b"Z\0\0\0\x05";

pub struct AnswerCut {
    address: SocketAddr,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    /// `(marker, needle)` while armed.
    armed: Mutex<Option<(Vec<u8>, Vec<u8>)>>,
    cuts: AtomicUsize,
}

impl Shared {
    fn marks(&self, statement: &[u8]) -> bool {
        self.armed.lock().unwrap().as_ref().is_some_and(|(marker, _)| contains(statement, marker))
    }

    /// Disarms and counts the cut when `answer` is the one to lose: it holds the needle and ends with
    /// a commit.
    fn cuts(&self, answer: &[u8]) -> bool {
        let mut armed = self.armed.lock().unwrap();
        let to_lose = armed.as_ref().is_some_and(|(_, needle)| contains(answer, needle));
        if to_lose && transaction_status(answer) == Some(b'I') {
            *armed = None;
            self.cuts.fetch_add(1, Ordering::SeqCst);
            return true;
        }
        false
    }
}

impl AnswerCut {
    /// Relays every connection to the PostgreSQL server of `database_url`.
    pub async fn start(database_url: &str) -> Self {
        let url = reqwest::Url::parse(database_url).expect("a database URL");
        let upstream = format!("{}:{}", url.host_str().expect("a host"), url.port().unwrap_or(5432));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let relaying = shared.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(&upstream).await else { continue };
                tokio::spawn(relay(client, server, relaying.clone()));
            }
        });
        Self { address, shared }
    }

    /// `database_url` with its host and port replaced by the relay's.
    pub fn url_through(&self, database_url: &str) -> String {
        let mut url = reqwest::Url::parse(database_url).expect("a database URL");
        url.set_host(Some("127.0.0.1")).unwrap();
        url.set_port(Some(self.address.port())).unwrap();
        url.to_string()
    }

    pub fn arm(&self, marker: &str, needle: &str) {
        *self.shared.armed.lock().unwrap() = Some((marker.as_bytes().to_vec(), needle.as_bytes().to_vec()));
    }

    /// How many answers were lost.
    pub fn cuts(&self) -> usize {
        self.shared.cuts.load(Ordering::SeqCst)
    }
}

async fn relay(client: TcpStream, server: TcpStream, shared: Arc<Shared>) {
    let (mut client_reads, mut client_writes) = client.into_split();
    let (mut server_reads, mut server_writes) = server.into_split();
    let (mut from_client, mut from_server) = (vec![0; 64 * 1024], vec![0; 64 * 1024]);
    // Whether the statement the client runs is a marked one: its text comes once, in the Parse message
    // that prepares it, and its executions follow (Bind, Execute) until another statement is parsed.
    // Statements that run on the connection meanwhile without a Parse (a cached one, a `BEGIN`) are
    // held as well, until their own ReadyForQuery, and then passed on.
    let mut marked = false;
    // The answer to the marked statement, held back until it is complete.
    let mut held = Vec::new();
    loop {
        tokio::select! {
            read = client_reads.read(&mut from_client) => {
                let Ok(n @ 1..) = read else { return };
                if from_client[0] == b'P' {
                    marked = shared.marks(&from_client[..n]);
                }
                if server_writes.write_all(&from_client[..n]).await.is_err() {
                    return;
                }
            }
            read = server_reads.read(&mut from_server) => {
                let Ok(n @ 1..) = read else { return };
                // Once holding, go on until the answer is whole, even if the client moved on (pipelined).
                let answer = if marked || !held.is_empty() {
                    held.extend_from_slice(&from_server[..n]);
                    if transaction_status(&held).is_none() {
                        continue;
                    }
                    if shared.cuts(&held) {
                        // Both connections close: the server has committed, the client hears nothing.
                        return;
                    }
                    std::mem::take(&mut held)
                } else {
                    from_server[..n].to_vec()
                };
                if client_writes.write_all(&answer).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// The transaction status of the ReadyForQuery that ends `answer`, once it has arrived whole.
fn transaction_status(answer: &[u8]) -> Option<u8> {
    let start = answer.windows(READY_FOR_QUERY.len()).position(|window| window == READY_FOR_QUERY)?;
    answer.get(start + READY_FOR_QUERY.len()).copied()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}
