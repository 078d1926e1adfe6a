//! A real SMTP receiver on 127.0.0.1 for the `nodemailer` adapter: EHLO/HELO, STARTTLS and implicit TLS
//! (a certificate chain generated once per test process, see [`ca_certificate`]), AUTH PLAIN and LOGIN
//! (checks [`USER`] and [`PASSWORD`], `535 5.7.8` otherwise), MAIL FROM, RCPT TO, DATA (with dot
//! unstuffing), RSET, NOOP and QUIT.
//!
//! It records every accepted mail: the envelope, the DATA as received, whether it came over TLS, the AUTH
//! user and the number of the connection it came on (connections are numbered from 1 as accepted, so a test
//! can count them). A test may script the reply to the next RCPT TO or to the next end of DATA (`451 4.3.0
//! try again later`, `550 5.1.1 no such user`); a rejected RCPT leaves the transaction open, as servers do.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{crypto::ring, ServerConfig};
use tokio_rustls::TlsAcceptor;

pub const USER: &str = "mailer@acme.io";
pub const PASSWORD: &str = "smtp-pa55-word";
const NAME: &str = "mx.fake.test";

/// What the receiver offers.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Advertise STARTTLS (and accept it).
    pub starttls: bool,
    /// TLS from the first byte (`secure`), instead of a plain greeting.
    pub implicit_tls: bool,
    /// The AUTH mechanisms advertised; none: no AUTH at all.
    pub auth: &'static [&'static str],
    /// Refuse MAIL FROM before a successful AUTH (`530 5.7.0`).
    pub require_auth: bool,
}

impl Options {
    /// Plain text only: no STARTTLS, no AUTH.
    pub const PLAIN: Self = Self { starttls: false, implicit_tls: false, auth: &[], require_auth: false };
    /// STARTTLS offered, no AUTH.
    pub const STARTTLS: Self = Self { starttls: true, ..Self::PLAIN };
    /// Implicit TLS, no AUTH.
    pub const IMPLICIT_TLS: Self = Self { implicit_tls: true, ..Self::PLAIN };

    /// Also offers AUTH with `mechanisms`, and requires it before MAIL FROM.
    pub const fn with_auth(self, mechanisms: &'static [&'static str]) -> Self {
        Self { auth: mechanisms, require_auth: true, ..self }
    }
}

/// Where a scripted reply is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Instead of accepting the next RCPT TO.
    Rcpt,
    /// Instead of queueing the next message, after its final `.`.
    EndOfData,
}

/// One mail the receiver accepted.
#[derive(Debug, Clone)]
pub struct Mail {
    /// The connection it came on, numbered from 1.
    pub connection: usize,
    pub from: String,
    pub recipients: Vec<String>,
    /// The DATA, CRLF line ends, dots unstuffed, without the final `.` line.
    pub data: String,
    pub tls: bool,
    pub auth_user: Option<String>,
}

impl Mail {
    /// The header block, before the first empty line.
    pub fn head(&self) -> &str {
        self.data.split_once("\r\n\r\n").map_or(self.data.as_str(), |(head, _)| head)
    }

    /// The body, after the first empty line.
    pub fn body(&self) -> &str {
        self.data.split_once("\r\n\r\n").map_or("", |(_, body)| body)
    }

    /// Every value of header `name` (case-insensitive), unfolded.
    pub fn headers(&self, name: &str) -> Vec<String> {
        unfolded(self.head())
            .into_iter()
            .filter_map(|(key, value)| key.eq_ignore_ascii_case(name).then_some(value))
            .collect()
    }

    /// The only value of header `name`, failing the test when there is none or more.
    pub fn header(&self, name: &str) -> String {
        let values = self.headers(name);
        assert_eq!(values.len(), 1, "expected one `{name}` header in\n{}", self.head());
        values.into_iter().next().unwrap()
    }
}

/// The `(name, value)` pairs of a header block, continuation lines joined.
pub fn unfolded(head: &str) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.split("\r\n") {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                value.push_str(line);
            }
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.to_owned(), value.trim_start().to_owned()));
        }
    }
    headers
}

#[derive(Default)]
struct State {
    mails: Vec<Mail>,
    connections: usize,
    auth_failures: usize,
    scripted: VecDeque<(Stage, String)>,
}

/// A running receiver; it stops with the test's runtime.
#[derive(Clone)]
pub struct FakeSmtp {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl FakeSmtp {
    pub async fn start(options: Options) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a local port");
        let port = listener.local_addr().expect("bound address").port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { return };
                let connection = {
                    let mut state = shared.lock().unwrap();
                    state.connections += 1;
                    state.connections
                };
                let session = Session { options, state: shared.clone(), connection };
                tokio::spawn(async move {
                    // A client that hangs up or fails its TLS handshake just ends the connection.
                    let _ = session.run(stream).await;
                });
            }
        });
        Self { port, state }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The next time `stage` is reached, answer `reply` (a full reply line such as `451 4.3.0 try again
    /// later`) instead of accepting; in the order queued.
    pub fn then(&self, stage: Stage, reply: &str) -> &Self {
        self.state.lock().unwrap().scripted.push_back((stage, reply.to_owned()));
        self
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.state.lock().unwrap().mails.clone()
    }

    /// The one mail received, failing the test when there were more or none.
    pub fn only_mail(&self) -> Mail {
        let mails = self.mails();
        assert_eq!(mails.len(), 1, "expected exactly one mail, got {mails:#?}");
        mails.into_iter().next().unwrap()
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.state.lock().unwrap().connections
    }

    /// AUTH attempts refused so far.
    pub fn auth_failures(&self) -> usize {
        self.state.lock().unwrap().auth_failures
    }
}

/// The PEM of the CA that signed the receiver's certificate (for `127.0.0.1` and `localhost`), for
/// `Providers::trusting_smtp_roots`.
pub fn ca_certificate() -> &'static str {
    &pki().0
}

fn pki() -> &'static (String, Arc<ServerConfig>) {
    static PKI: OnceLock<(String, Arc<ServerConfig>)> = OnceLock::new();
    PKI.get_or_init(|| {
        let mut ca = CertificateParams::new(Vec::new()).expect("CA parameters");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, "Herald test SMTP CA");
        let ca_key = KeyPair::generate().expect("a CA key");
        let ca_cert = ca.self_signed(&ca_key).expect("the CA certificate");
        let issuer = Issuer::new(ca, ca_key);

        let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("server certificate parameters");
        leaf.distinguished_name.push(DnType::CommonName, NAME);
        let leaf_key = KeyPair::generate().expect("a server key");
        let leaf_cert = leaf.signed_by(&leaf_key, &issuer).expect("the server certificate");

        let chain: Vec<CertificateDer<'static>> = vec![leaf_cert.der().clone(), ca_cert.der().clone()];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
        let config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("the server certificate and key match");
        (ca_cert.pem(), Arc::new(config))
    })
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// What ended a stretch of the conversation.
enum Next {
    Quit,
    StartTls,
}

struct Session {
    options: Options,
    state: Arc<Mutex<State>>,
    connection: usize,
}

impl Session {
    async fn run(self, stream: tokio::net::TcpStream) -> std::io::Result<()> {
        let acceptor = TlsAcceptor::from(pki().1.clone());
        let mut tls = self.options.implicit_tls;
        let mut io: Box<dyn Io> = if tls { Box::new(acceptor.accept(stream).await?) } else { Box::new(stream) };
        io.write_all(format!("220 {NAME} ESMTP fake\r\n").as_bytes()).await?;
        loop {
            match self.converse(&mut io, tls).await? {
                Next::Quit => return Ok(()),
                Next::StartTls => {
                    io = Box::new(acceptor.accept(io).await?);
                    tls = true;
                }
            }
        }
    }

    /// One stretch of the conversation: until QUIT, the end of the connection, or STARTTLS (after which
    /// everything starts over, as RFC 3207 says).
    async fn converse(&self, io: &mut Box<dyn Io>, tls: bool) -> std::io::Result<Next> {
        let mut io = BufReader::new(io);
        let mut greeted = false;
        let mut auth_user: Option<String> = None;
        let mut from: Option<String> = None;
        let mut recipients: Vec<String> = Vec::new();
        loop {
            let Some(line) = read_line(&mut io).await? else { return Ok(Next::Quit) };
            let (verb, argument) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            let reply = match verb.to_ascii_uppercase().as_str() {
                "EHLO" => {
                    greeted = true;
                    (from, recipients) = (None, Vec::new());
                    let mut lines = vec![format!("{NAME} greets {argument}"), "8BITMIME".into(), "SMTPUTF8".into()];
                    if self.options.starttls && !tls {
                        lines.push("STARTTLS".into());
                    }
                    if !self.options.auth.is_empty() {
                        lines.push(format!("AUTH {}", self.options.auth.join(" ")));
                    }
                    let last = lines.len() - 1;
                    lines
                        .iter()
                        .enumerate()
                        .map(|(i, line)| format!("250{}{line}", if i == last { ' ' } else { '-' }))
                        .collect::<Vec<_>>()
                        .join("\r\n")
                }
                "HELO" => {
                    greeted = true;
                    format!("250 {NAME}")
                }
                "STARTTLS" if self.options.starttls && !tls => {
                    write(&mut io, "220 2.0.0 Ready to start TLS").await?;
                    return Ok(Next::StartTls);
                }
                "AUTH" if !greeted => "503 5.5.1 EHLO first".into(),
                "AUTH" if auth_user.is_some() => "503 5.5.1 Already authenticated".into(),
                "AUTH" => match self.authenticate(&mut io, argument).await? {
                    Ok(user) => {
                        auth_user = Some(user);
                        "235 2.7.0 Authentication successful".into()
                    }
                    Err(reply) => reply,
                },
                "MAIL" if !greeted => "503 5.5.1 EHLO first".into(),
                "MAIL" if self.options.require_auth && auth_user.is_none() => {
                    "530 5.7.0 Authentication required".into()
                }
                "MAIL" => match path(argument, "FROM:") {
                    Some(address) => {
                        (from, recipients) = (Some(address), Vec::new());
                        "250 2.1.0 Ok".into()
                    }
                    None => "501 5.5.4 Syntax: MAIL FROM:<address>".into(),
                },
                "RCPT" if from.is_none() => "503 5.5.1 need MAIL before RCPT".into(),
                "RCPT" => match (path(argument, "TO:"), self.scripted(Stage::Rcpt)) {
                    (None, _) => "501 5.5.4 Syntax: RCPT TO:<address>".into(),
                    (Some(_), Some(reply)) => reply,
                    (Some(address), None) => {
                        recipients.push(address);
                        "250 2.1.5 Ok".into()
                    }
                },
                "DATA" if recipients.is_empty() => "554 5.5.1 No valid recipients".into(),
                "DATA" => {
                    write(&mut io, "354 End data with <CR><LF>.<CR><LF>").await?;
                    let Some(data) = read_data(&mut io).await? else { return Ok(Next::Quit) };
                    let from = from.take().unwrap_or_default();
                    let recipients = std::mem::take(&mut recipients);
                    match self.scripted(Stage::EndOfData) {
                        Some(reply) => reply,
                        None => {
                            let mut state = self.state.lock().unwrap();
                            let connection = self.connection;
                            let auth_user = auth_user.clone();
                            state.mails.push(Mail { connection, from, recipients, data, tls, auth_user });
                            format!("250 2.0.0 Ok: queued as Q{}", state.mails.len())
                        }
                    }
                }
                "RSET" => {
                    (from, recipients) = (None, Vec::new());
                    "250 2.0.0 Ok".into()
                }
                "NOOP" => "250 2.0.0 Ok".into(),
                "QUIT" => {
                    write(&mut io, "221 2.0.0 Bye").await?;
                    return Ok(Next::Quit);
                }
                _ => "502 5.5.2 Error: command not recognized".into(),
            };
            write(&mut io, &reply).await?;
        }
    }

    /// AUTH PLAIN (with or without an initial response) or LOGIN: the user, or the refusal to answer.
    async fn authenticate<S: AsyncBufReadExt + AsyncWrite + Unpin>(
        &self,
        io: &mut S,
        argument: &str,
    ) -> std::io::Result<Result<String, String>> {
        let (mechanism, initial) = argument.split_once(' ').unwrap_or((argument, ""));
        let mechanism = mechanism.to_ascii_uppercase();
        if !self.options.auth.iter().any(|offered| offered.eq_ignore_ascii_case(&mechanism)) {
            return Ok(Err("504 5.5.4 Unrecognized authentication type".into()));
        }
        let decode = |text: &str| String::from_utf8(BASE64.decode(text.trim()).unwrap_or_default()).unwrap_or_default();
        let (user, password) = if mechanism == "PLAIN" {
            let response = if initial.is_empty() { prompt(io, "334 ").await? } else { initial.to_owned() };
            let decoded = decode(&response);
            let mut parts = decoded.split('\0').skip(1);
            (parts.next().unwrap_or_default().to_owned(), parts.next().unwrap_or_default().to_owned())
        } else {
            let user = if initial.is_empty() { prompt(io, "334 VXNlcm5hbWU6").await? } else { initial.to_owned() };
            let user = decode(&user);
            let password = decode(&prompt(io, "334 UGFzc3dvcmQ6").await?);
            (user, password)
        };
        if user == USER && password == PASSWORD {
            Ok(Ok(user))
        } else {
            self.state.lock().unwrap().auth_failures += 1;
            Ok(Err("535 5.7.8 Error: authentication failed: authentication failure".into()))
        }
    }

    fn scripted(&self, stage: Stage) -> Option<String> {
        let mut state = self.state.lock().unwrap();
        let next = state.scripted.front().is_some_and(|(at, _)| *at == stage);
        next.then(|| state.scripted.pop_front().map(|(_, reply)| reply)).flatten()
    }
}

/// `<address>` after `prefix` (`FROM:`, `TO:`), parameters ignored.
fn path(argument: &str, prefix: &str) -> Option<String> {
    if !argument.get(..prefix.len())?.eq_ignore_ascii_case(prefix) {
        return None;
    }
    let inner = argument[prefix.len()..].trim_start().strip_prefix('<')?.split_once('>')?.0;
    Some(inner.to_owned())
}

/// Sends a `334` challenge and reads the client's answer line.
async fn prompt<S: AsyncBufReadExt + AsyncWrite + Unpin>(io: &mut S, challenge: &str) -> std::io::Result<String> {
    write(io, challenge).await?;
    Ok(read_line(io).await?.unwrap_or_default())
}

/// One command line without its CRLF; `None` when the client hung up.
async fn read_line<S: AsyncBufReadExt + Unpin>(io: &mut S) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    if io.read_until(b'\n', &mut line).await? == 0 {
        return Ok(None);
    }
    let line = String::from_utf8_lossy(&line);
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()))
}

/// The lines up to the lone `.`, dots unstuffed, each ending in CRLF.
async fn read_data<S: AsyncBufReadExt + Unpin>(io: &mut S) -> std::io::Result<Option<String>> {
    let mut data = String::new();
    loop {
        let Some(line) = read_line(io).await? else { return Ok(None) };
        if line == "." {
            return Ok(Some(data));
        }
        data.push_str(line.strip_prefix('.').unwrap_or(&line));
        data.push_str("\r\n");
    }
}

async fn write<S: AsyncWrite + Unpin>(io: &mut S, reply: &str) -> std::io::Result<()> {
    io.write_all(format!("{reply}\r\n").as_bytes()).await?;
    io.flush().await
}
