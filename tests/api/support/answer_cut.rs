//! A TCP relay in front of PostgreSQL that loses one answer. Once armed, the first statement whose text
//! holds `marker` and whose answer holds `needle` runs and commits on the server, but the answer that
//! ends its transaction (its own, or its transaction's `COMMIT`'s) never reaches the client: the
//! client's connection is closed instead, as when a network or a server fault ends a connection
//! between a commit and its answer. The client cannot tell whether it committed.

use std::collections::HashMap;
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

    /// What to do with the complete `answer` of a held statement, on a connection whose transaction
    /// is `doomed` (an earlier answer of it held the needle).
    fn verdict(&self, answer: &[u8], doomed: bool) -> Verdict {
        let mut armed = self.armed.lock().unwrap();
        // The first answer to hold the needle disarms the relay: two connections running the marked
        // statement at once (two worker loops claiming) would otherwise both be doomed, and two answers lost.
        let chosen = doomed || armed.take_if(|(_, needle)| contains(answer, needle)).is_some();
        match (chosen, transaction_status(answer)) {
            (true, Some(b'I')) => {
                self.cuts.fetch_add(1, Ordering::SeqCst);
                Verdict::Cut
            }
            (true, _) => Verdict::Doom,
            (false, _) => Verdict::Pass,
        }
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

/// What happens to a held answer.
enum Verdict {
    Pass,
    /// Pass it, and lose the answer that ends its transaction.
    Doom,
    /// Lose it: close both connections.
    Cut,
}

async fn relay(client: TcpStream, server: TcpStream, shared: Arc<Shared>) {
    let (mut client_reads, mut client_writes) = client.into_split();
    let (mut server_reads, mut server_writes) = server.into_split();
    let (mut from_client, mut from_server) = (vec![0; 64 * 1024], vec![0; 64 * 1024]);
    // The statements the client prepared on this connection, by name, with their text: it comes once,
    // in the Parse message that prepares a statement, and each execution (Bind) names the statement.
    let mut statements: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    // Whether the statement the client runs is a marked one.
    let mut marked = false;
    // The answer to the marked statement, held back until it is complete.
    let mut held = Vec::new();
    // The marked statement's answer held the needle inside a transaction: the answer that ends it is lost.
    let mut doomed = false;
    loop {
        tokio::select! {
            read = client_reads.read(&mut from_client) => {
                let Ok(n @ 1..) = read else { return };
                for (kind, body) in messages(&from_client[..n]) {
                    match kind {
                        b'P' => {
                            let (name, rest) = c_string(body);
                            statements.insert(name.to_vec(), c_string(rest).0.to_vec());
                        }
                        b'B' => {
                            let statement = c_string(c_string(body).1).0;
                            marked = statements.get(statement).is_some_and(|text| shared.marks(text));
                        }
                        b'Q' => marked = shared.marks(body),
                        _ => {}
                    }
                }
                if server_writes.write_all(&from_client[..n]).await.is_err() {
                    return;
                }
            }
            read = server_reads.read(&mut from_server) => {
                let Ok(n @ 1..) = read else { return };
                // Once holding, go on until the answer is whole, even if the client moved on (pipelined).
                let answer = if marked || doomed || !held.is_empty() {
                    held.extend_from_slice(&from_server[..n]);
                    if transaction_status(&held).is_none() {
                        continue;
                    }
                    match shared.verdict(&held, doomed) {
                        // Both connections close: the server has committed, the client hears nothing.
                        Verdict::Cut => return,
                        Verdict::Doom => doomed = true,
                        Verdict::Pass => {}
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

/// The messages of a client's write (type, body), as far as they are whole. The start-up message
/// has no type byte; its length reads as too long and ends the list.
fn messages(bytes: &[u8]) -> impl Iterator<Item = (u8, &[u8])> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        let length = u32::from_be_bytes(rest.get(1..5)?.try_into().ok()?) as usize;
        let (kind, body) = (rest[0], rest.get(5..1 + length)?);
        rest = &rest[1 + length..];
        Some((kind, body))
    })
}

/// A NUL-terminated string at the start of `bytes`, and what follows it.
fn c_string(bytes: &[u8]) -> (&[u8], &[u8]) {
    let end = bytes.iter().position(|byte| *byte == 0).unwrap_or(bytes.len());
    (&bytes[..end], bytes.get(end + 1..).unwrap_or_default())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}
