//! `nodemailer` against a real SMTP receiver on 127.0.0.1 (`crate::fakes::smtp`): the TLS modes, AUTH,
//! how replies are sorted, the exact MIME message, and connection reuse.

use herald::providers::{Accepted, Channel, Delivery, ProviderError, Providers};
use serde_json::{json, Value};

use super::delivery;
use crate::fakes::smtp::{ca_certificate, unfolded, FakeSmtp, Options, Stage, PASSWORD, USER};

/// An integration on the local receiver with `extra` credentials (`secure`, `requireTls`, …).
fn credentials(fake: &FakeSmtp, extra: Value) -> Value {
    let mut credentials =
        json!({"host": "127.0.0.1", "port": fake.port().to_string(), "from": "orders@acme.io", "senderName": "Acme"});
    for (key, value) in extra.as_object().expect("an object") {
        credentials[key] = value.clone();
    }
    credentials
}

fn email(credentials: Value) -> Delivery {
    delivery("nodemailer", Channel::Email, credentials)
}

/// The adapters, trusting the receiver's test CA.
fn providers() -> Providers {
    crate::support::local_providers().trusting_smtp_roots(&[ca_certificate()]).expect("the test CA parses")
}

async fn send_with(providers: &Providers, delivery: &Delivery) -> Result<Accepted, ProviderError> {
    providers.get("nodemailer").expect("the SMTP adapter").send(delivery).await
}

async fn send(delivery: &Delivery) -> Result<Accepted, ProviderError> {
    send_with(&providers(), delivery).await
}

#[tokio::test]
async fn ignore_tls_sends_in_plain_text_even_when_starttls_is_offered() {
    let fake = FakeSmtp::start(Options::STARTTLS).await;

    let accepted = send(&email(credentials(&fake, json!({"ignoreTls": true})))).await.expect("accepted");

    let mail = fake.only_mail();
    assert!(!mail.tls, "ignoreTls never upgrades");
    assert_eq!(
        (mail.from.as_str(), mail.recipients.as_slice()),
        ("orders@acme.io", ["ada@example.com".to_string()].as_slice())
    );
    assert_eq!(mail.auth_user, None);
    assert!(accepted.raw.as_deref().is_some_and(|raw| raw.starts_with("250 2.0.0 Ok: queued as Q1")), "{accepted:?}");
}

#[tokio::test]
async fn by_default_starttls_is_used_when_offered_and_plain_text_otherwise() {
    let offered = FakeSmtp::start(Options::STARTTLS).await;
    send(&email(credentials(&offered, json!({})))).await.expect("accepted over STARTTLS");
    assert!(offered.only_mail().tls, "the connection was upgraded");

    let not_offered = FakeSmtp::start(Options::PLAIN).await;
    send(&email(credentials(&not_offered, json!({})))).await.expect("accepted in plain text");
    assert!(!not_offered.only_mail().tls);
}

#[tokio::test]
async fn require_tls_upgrades_and_refuses_a_server_without_starttls() {
    let offered = FakeSmtp::start(Options::STARTTLS).await;
    send(&email(credentials(&offered, json!({"requireTls": true})))).await.expect("accepted over STARTTLS");
    assert!(offered.only_mail().tls);

    let not_offered = FakeSmtp::start(Options::PLAIN).await;
    let err = send(&email(credentials(&not_offered, json!({"requireTls": true})))).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(err.to_string().contains("STARTTLS is not supported"), "{err}");
    assert!(not_offered.mails().is_empty(), "nothing is sent in clear");
}

#[tokio::test]
async fn secure_speaks_tls_from_the_first_byte() {
    let fake = FakeSmtp::start(Options::IMPLICIT_TLS).await;

    send(&email(credentials(&fake, json!({"secure": true})))).await.expect("accepted over implicit TLS");

    assert!(fake.only_mail().tls);
}

#[tokio::test]
async fn tls_failures_misconfigure_the_integration() {
    // A certificate from an unknown CA: the adapter trusts only the public roots unless told otherwise.
    let fake = FakeSmtp::start(Options::STARTTLS).await;
    let err = send_with(&crate::support::local_providers(), &email(credentials(&fake, json!({"requireTls": true}))))
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(err.to_string().contains("TLS with 127.0.0.1"), "{err}");
    assert!(err.to_string().contains("certificate"), "{err}");

    // `secure` against a server that greets in plain text (port 587 given with `secure`).
    let plain = FakeSmtp::start(Options::PLAIN).await;
    let err = send(&email(credentials(&plain, json!({"secure": true})))).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(fake.mails().is_empty() && plain.mails().is_empty());
}

#[tokio::test]
async fn auth_plain_and_login_are_used_when_both_user_and_password_are_set() {
    let login = json!({"user": USER, "password": PASSWORD});
    let plain = FakeSmtp::start(Options::STARTTLS.with_auth(&["PLAIN", "LOGIN"])).await;
    send(&email(credentials(&plain, login.clone()))).await.expect("accepted after AUTH PLAIN");
    assert_eq!(plain.only_mail().auth_user.as_deref(), Some(USER));

    let login_only = FakeSmtp::start(Options::STARTTLS.with_auth(&["LOGIN"])).await;
    send(&email(credentials(&login_only, login))).await.expect("accepted after AUTH LOGIN");
    assert_eq!(login_only.only_mail().auth_user.as_deref(), Some(USER));

    // A user without a password: no AUTH at all, so a server that requires it refuses the sender.
    let err = send(&email(credentials(&plain, json!({"user": USER})))).await.unwrap_err();
    assert!(err.to_string().contains("530 from 127.0.0.1: 5.7.0 Authentication required"), "{err}");
    assert_eq!(plain.auth_failures(), 0, "no AUTH was attempted");
}

#[tokio::test]
async fn a_refused_login_misconfigures_the_integration_without_showing_the_password() {
    let fake = FakeSmtp::start(Options::STARTTLS.with_auth(&["PLAIN", "LOGIN"])).await;
    let wrong = "not-the-pa55-word";

    let err = send(&email(credentials(&fake, json!({"user": USER, "password": wrong})))).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: nodemailer: SMTP 535 from 127.0.0.1: 5.7.8 Error: authentication \
         failed: authentication failure"
    );
    assert!(!format!("{err:?}").contains(wrong), "the password is never shown");
    assert_eq!(fake.auth_failures(), 1);
    assert!(fake.mails().is_empty());
}

#[tokio::test]
async fn a_4xx_reply_is_transient_and_the_next_send_gets_a_fresh_connection() {
    let fake = FakeSmtp::start(Options::PLAIN).await;
    let providers = providers();
    let delivery = email(credentials(&fake, json!({"ignoreTls": true})));

    fake.then(Stage::Rcpt, "451 4.3.0 try again later");
    let err = send_with(&providers, &delivery).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.to_string(), "nodemailer: SMTP 451 from 127.0.0.1: 4.3.0 try again later");
    assert_eq!(err.raw(), Some("451 4.3.0 try again later"));

    fake.then(Stage::EndOfData, "452 4.3.1 insufficient system storage");
    let err = send_with(&providers, &delivery).await.unwrap_err();
    assert!(err.is_transient() && err.to_string().ends_with("4.3.1 insufficient system storage"), "{err:?}");

    send_with(&providers, &delivery).await.expect("accepted on the retry");
    let mail = fake.only_mail();
    assert_eq!(fake.connections(), 3, "a connection that saw an error is not reused");
    assert_eq!(mail.connection, 3);
}

#[tokio::test]
async fn a_5xx_reply_is_permanent() {
    let fake = FakeSmtp::start(Options::PLAIN).await;
    let delivery = email(credentials(&fake, json!({"ignoreTls": true})));

    fake.then(Stage::Rcpt, "550 5.1.1 no such user");
    let err = send(&delivery).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert_eq!(err.to_string(), "nodemailer: SMTP 550 from 127.0.0.1: 5.1.1 no such user");

    fake.then(Stage::EndOfData, "554 5.6.0 message content rejected");
    let err = send(&delivery).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("5.6.0 message content rejected"), "{err}");
    assert!(fake.mails().is_empty());
}

#[tokio::test]
async fn an_unreachable_server_is_transient_and_missing_settings_misconfigure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let closed = json!({"host": "127.0.0.1", "port": port.to_string(), "from": "orders@acme.io"});
    let err = send(&email(closed.clone())).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert!(err.to_string().contains(&format!("the connection to 127.0.0.1:{port} failed")), "{err}");

    for (key, value) in [("host", json!("")), ("port", json!("smtp")), ("from", Value::Null)] {
        let mut incomplete = closed.clone();
        incomplete[key] = value;
        let err = send(&email(incomplete)).await.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{key}: {err:?}");
        assert!(err.to_string().contains(&format!("`{key}`")), "{err}");
    }
}

#[tokio::test]
async fn the_message_has_every_header_both_parts_and_the_recorded_message_id() {
    let fake = FakeSmtp::start(Options::STARTTLS).await;
    let mut delivery = email(credentials(&fake, json!({})));
    delivery.overrides = json!({"email": {"replyTo": "help@acme.io", "cc": ["ops@acme.io"], "bcc": "audit@acme.io",
                                          "headers": {"X-Entity-Ref-ID": "A-1"}}});

    let accepted = send(&delivery).await.expect("accepted");

    let mail = fake.only_mail();
    assert_eq!(mail.header("From"), "Acme <orders@acme.io>");
    assert_eq!(mail.header("To"), "ada@example.com");
    assert_eq!(mail.header("Cc"), "ops@acme.io");
    assert_eq!(mail.header("Reply-To"), "help@acme.io");
    assert_eq!(mail.header("Subject"), "Your order shipped");
    assert_eq!(mail.header("X-Entity-Ref-ID"), "A-1");
    assert_eq!(mail.header("MIME-Version"), "1.0");
    assert_eq!(mail.headers("Date").len(), 1);
    let message_id = mail.header("Message-ID");
    assert!(message_id.starts_with('<') && message_id.ends_with('>') && message_id.contains('@'), "{message_id}");
    assert_eq!(accepted.provider_message_id.as_deref(), Some(message_id.as_str()));

    let content_type = mail.header("Content-Type");
    let boundary = content_type
        .strip_prefix("multipart/alternative; boundary=\"")
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("multipart/alternative, got {content_type}"));
    let parts: Vec<(Vec<(String, String)>, String)> = mail
        .body()
        .split(&format!("--{boundary}"))
        .skip(1)
        .filter(|part| !part.starts_with("--"))
        .map(|part| {
            let (head, body) = part.trim_start_matches("\r\n").split_once("\r\n\r\n").expect("a part's headers");
            (unfolded(head), body.trim_end_matches("\r\n").to_owned())
        })
        .collect();
    let part = |content_type: &str, body: &str| {
        (
            vec![
                ("Content-Type".to_string(), content_type.to_string()),
                ("Content-Transfer-Encoding".to_string(), "7bit".to_string()),
            ],
            body.to_string(),
        )
    };
    assert_eq!(
        parts,
        [
            part("text/plain; charset=utf-8", "Order A-1 shipped"),
            part("text/html; charset=utf-8", "<p>Order A-1 shipped</p>")
        ]
    );
}

#[tokio::test]
async fn bcc_recipients_are_in_the_envelope_only() {
    let fake = FakeSmtp::start(Options::PLAIN).await;
    let mut delivery = email(credentials(&fake, json!({})));
    delivery.overrides = json!({"email": {"cc": "ops@acme.io", "bcc": ["audit@acme.io", "legal@acme.io"]}});

    send(&delivery).await.expect("accepted");

    let mail = fake.only_mail();
    assert_eq!(mail.recipients, ["ada@example.com", "ops@acme.io", "audit@acme.io", "legal@acme.io"]);
    assert!(mail.headers("Bcc").is_empty(), "{}", mail.head());
    assert!(!mail.data.contains("audit@acme.io") && !mail.data.contains("legal@acme.io"), "{}", mail.data);
}

#[tokio::test]
async fn one_integration_reuses_one_connection_and_another_configuration_gets_its_own() {
    let fake = FakeSmtp::start(Options::STARTTLS.with_auth(&["PLAIN"])).await;
    let providers = providers();
    let integration = credentials(&fake, json!({"user": USER, "password": PASSWORD}));

    let mut ids = Vec::new();
    for _ in 0..5 {
        let accepted = send_with(&providers, &email(integration.clone())).await.expect("accepted");
        ids.push(accepted.provider_message_id.expect("a Message-ID"));
    }

    assert_eq!(fake.connections(), 1, "five emails, one connection");
    let mails = fake.mails();
    assert_eq!(mails.len(), 5);
    assert!(mails.iter().all(|mail| mail.connection == 1 && mail.tls && mail.auth_user.as_deref() == Some(USER)));
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 5, "each email has its own Message-ID");

    // Another configuration of the same server (STARTTLS required) is another pool...
    let mut required = integration.clone();
    required["requireTls"] = json!(true);
    send_with(&providers, &email(required.clone())).await.expect("accepted");
    send_with(&providers, &email(required)).await.expect("accepted");
    assert_eq!(fake.connections(), 2);
    // ...and the first one's connection is still there.
    send_with(&providers, &email(integration)).await.expect("accepted");
    assert_eq!(fake.connections(), 2);
    let connections: Vec<usize> = fake.mails().iter().map(|mail| mail.connection).collect();
    assert_eq!(connections, [1, 1, 1, 1, 1, 2, 2, 1]);
}

#[tokio::test]
async fn an_smtp_host_in_a_refused_range_is_not_connected_to() {
    let fake = FakeSmtp::start(Options::PLAIN).await;
    let strict = Providers::new(crate::support::provider_settings(""));
    for (host, expected) in [
        ("127.0.0.1", "nodemailer: destination 127.0.0.1 is in the loopback range 127.0.0.0/8"),
        ("localhost", "nodemailer: destination localhost ("),
    ] {
        let mut credentials = credentials(&fake, json!({}));
        credentials["host"] = json!(host);

        let err = send_with(&strict, &email(credentials)).await.expect_err("refused");

        assert!(matches!(err, ProviderError::Permanent { .. }), "{host}: {err:?}");
        let text = err.to_string();
        assert!(text.starts_with(expected) && text.ends_with("allow it with HERALD_OUTBOUND_ALLOW"), "{text}");
    }
    assert_eq!(fake.connections(), 0, "no connection was opened");

    let allowed = Providers::new(crate::support::provider_settings("127.0.0.1/32"));
    send_with(&allowed, &email(credentials(&fake, json!({})))).await.expect("an allowed address is reached");
    assert_eq!(fake.mails().len(), 1);
}
