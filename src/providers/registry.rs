//! The adapters by provider id, sharing one HTTP client (one connection pool for every delivery).

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Client, ClientBuilder};

use super::apns::Apns;
use super::appio::AppIo;
use super::chat_webhook::ChatWebhook;
use super::discord::Discord;
use super::email_webhook::EmailWebhook;
use super::expo::Expo;
use super::fcm::Fcm;
use super::generic_sms::GenericSms;
use super::getstream::GetStream;
use super::grafana_on_call::GrafanaOnCall;
use super::mailgun::Mailgun;
use super::mattermost::Mattermost;
use super::msteams::MsTeams;
use super::nexmo::Nexmo;
use super::one_signal::OneSignal;
use super::outbound::OutboundPolicy;
use super::plivo::Plivo;
use super::postmark::Postmark;
use super::push_webhook::PushWebhook;
use super::pusher_beams::PusherBeams;
use super::pushpad::Pushpad;
use super::resend::Resend;
use super::rocket_chat::RocketChat;
use super::ryver::Ryver;
use super::sendgrid::Sendgrid;
use super::ses::Ses;
use super::slack::Slack;
use super::smtp::Smtp;
use super::sns::Sns;
use super::twilio::Twilio;
use super::whatsapp_business::WhatsappBusiness;
use super::zulip::Zulip;
use super::{Provider, ProviderError, ProviderSettings};

/// A provider that does not answer the TCP handshake in this time is down for now.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Bounds a whole request, so a stalled receiver cannot hold a worker (and its job lease) for long.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(15);

/// How every adapter's HTTP client is set up: only where `outbound` allows, no redirects (see the module
/// docs of `providers`: a 3xx is an answer, not a place to re-send a signed body), bounded waits, Herald's
/// user agent.
pub(crate) fn client_builder(outbound: &Arc<OutboundPolicy>) -> ClientBuilder {
    outbound
        .http_client()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(TOTAL_TIMEOUT)
        .user_agent(concat!("herald/", env!("CARGO_PKG_VERSION")))
}

/// What every HTTP adapter holds: the shared client (one connection pool for every delivery) and what
/// the operator allows.
#[derive(Clone)]
pub(crate) struct Http {
    pub(crate) client: Client,
    /// The same, speaking HTTP/2 without TLS (prior knowledge): for the push adapters' plain-http
    /// `baseUrl`s (local fakes), where HTTP/2 cannot be negotiated as it is over TLS.
    pub(crate) h2c: Client,
    pub(crate) settings: ProviderSettings,
}

/// Every delivery adapter. Build once and share (`Arc`): the HTTP client pools connections, and so does the
/// SMTP adapter (one pool per SMTP configuration).
pub struct Providers {
    email_webhook: EmailWebhook,
    chat_webhook: ChatWebhook,
    push_webhook: PushWebhook,
    generic_sms: GenericSms,
    resend: Resend,
    sendgrid: Sendgrid,
    mailgun: Mailgun,
    postmark: Postmark,
    ses: Ses,
    sns: Sns,
    twilio: Twilio,
    nexmo: Nexmo,
    plivo: Plivo,
    slack: Slack,
    svc_slack: Slack,
    discord: Discord,
    msteams: MsTeams,
    mattermost: Mattermost,
    zulip: Zulip,
    ryver: Ryver,
    grafana_on_call: GrafanaOnCall,
    rocket_chat: RocketChat,
    getstream: GetStream,
    appio: AppIo,
    apns: Apns,
    one_signal: OneSignal,
    fcm: Fcm,
    expo: Expo,
    pushpad: Pushpad,
    pusher_beams: PusherBeams,
    whatsapp_business: WhatsappBusiness,
    smtp: Smtp,
}

impl Providers {
    pub fn new(settings: ProviderSettings) -> Self {
        let outbound = &settings.outbound;
        let client = client_builder(outbound).build().expect("the HTTP client's TLS backend initializes");
        let h2c = client_builder(outbound)
            .http2_prior_knowledge()
            .build()
            .expect("the HTTP client's TLS backend initializes");
        let smtp = Smtp::new(outbound.clone());
        let apns = Apns::new(settings.clone());
        let http = Http { client, h2c, settings };
        Self {
            email_webhook: EmailWebhook { http: http.clone() },
            chat_webhook: ChatWebhook { http: http.clone() },
            push_webhook: PushWebhook { http: http.clone() },
            generic_sms: GenericSms { http: http.clone() },
            resend: Resend { http: http.clone() },
            sendgrid: Sendgrid { http: http.clone() },
            mailgun: Mailgun { http: http.clone() },
            postmark: Postmark { http: http.clone() },
            ses: Ses { http: http.clone() },
            sns: Sns { http: http.clone() },
            twilio: Twilio { http: http.clone() },
            nexmo: Nexmo { http: http.clone() },
            plivo: Plivo { http: http.clone() },
            slack: Slack { http: http.clone(), id: "slack" },
            svc_slack: Slack { http: http.clone(), id: "svc-slack" },
            discord: Discord { http: http.clone() },
            msteams: MsTeams { http: http.clone() },
            mattermost: Mattermost { http: http.clone() },
            zulip: Zulip { http: http.clone() },
            ryver: Ryver { http: http.clone() },
            grafana_on_call: GrafanaOnCall { http: http.clone() },
            rocket_chat: RocketChat { http: http.clone() },
            getstream: GetStream { http: http.clone() },
            appio: AppIo { http: http.clone() },
            apns,
            one_signal: OneSignal { http: http.clone() },
            fcm: Fcm::new(http.clone()),
            expo: Expo { http: http.clone() },
            pushpad: Pushpad { http: http.clone() },
            pusher_beams: PusherBeams { http: http.clone() },
            whatsapp_business: WhatsappBusiness { http },
            smtp,
        }
    }

    /// Also trusts `certificates` (PEM or DER) as roots for SMTP TLS, besides the Mozilla ones. A test hook:
    /// tests trust their local receiver's self-signed certificate this way; no setting or credential reaches
    /// it, so production verifies against the public roots only. (Not a [`ProviderSettings`] field: that type
    /// is shared by the API process, which has no SMTP.)
    pub fn trusting_smtp_roots<C: AsRef<[u8]>>(mut self, certificates: &[C]) -> Result<Self, ProviderError> {
        for certificate in certificates {
            self.smtp.trust(certificate.as_ref())?;
        }
        Ok(self)
    }

    /// The adapter for `provider_id`; `Unsupported` for every other id, whether the spec lists it or not.
    pub fn get(&self, provider_id: &str) -> Result<&dyn Provider, ProviderError> {
        match provider_id {
            "email-webhook" => Ok(&self.email_webhook),
            "chat-webhook" => Ok(&self.chat_webhook),
            "push-webhook" => Ok(&self.push_webhook),
            "generic-sms" => Ok(&self.generic_sms),
            "resend" => Ok(&self.resend),
            "sendgrid" => Ok(&self.sendgrid),
            "mailgun" => Ok(&self.mailgun),
            "postmark" => Ok(&self.postmark),
            "ses" => Ok(&self.ses),
            "sns" => Ok(&self.sns),
            "twilio" => Ok(&self.twilio),
            "nexmo" => Ok(&self.nexmo),
            "plivo" => Ok(&self.plivo),
            "slack" => Ok(&self.slack),
            "svc-slack" => Ok(&self.svc_slack),
            "discord" => Ok(&self.discord),
            "msteams" => Ok(&self.msteams),
            "mattermost" => Ok(&self.mattermost),
            "zulip" => Ok(&self.zulip),
            "ryver" => Ok(&self.ryver),
            "grafana-on-call" => Ok(&self.grafana_on_call),
            "rocket-chat" => Ok(&self.rocket_chat),
            "getstream" => Ok(&self.getstream),
            "apns" => Ok(&self.apns),
            "one-signal" => Ok(&self.one_signal),
            "fcm" => Ok(&self.fcm),
            "expo" => Ok(&self.expo),
            "pushpad" => Ok(&self.pushpad),
            "pusher-beams" => Ok(&self.pusher_beams),
            "appio" => Ok(&self.appio),
            "whatsapp-business" => Ok(&self.whatsapp_business),
            "nodemailer" => Ok(&self.smtp),
            _ => Err(ProviderError::Unsupported { provider_id: provider_id.to_owned() }),
        }
    }
}
