//! Which provider delivers on which channel: the one table the API (create, validation) and the
//! engine (adapter choice) both read. Provider ids are the spec's list; `svc` is our own in-app inbox.

/// The delivery channels, in the spellings of the API.
pub const CHANNELS: [&str; 5] = ["in_app", "email", "sms", "chat", "push"];

/// Channels that have a primary integration (the one used for delivery when several are active).
pub const CHANNELS_WITH_PRIMARY: [&str; 2] = ["email", "sms"];

const IN_APP: &[&str] = &["svc"];

const EMAIL: &[&str] = &[
    "emailjs",
    "mailgun",
    "mailjet",
    "mandrill",
    "nodemailer",
    "postmark",
    "sendgrid",
    "sendinblue",
    "ses",
    "netcore",
    "infobip-email",
    "resend",
    "plunk",
    "mailersend",
    "mailtrap",
    "outlook365",
    "svc-email",
    "sparkpost",
    "email-webhook",
    "braze",
];

// `clickatell` sits among the email ids in the spec's flat list but is an SMS gateway.
const SMS: &[&str] = &[
    "nexmo",
    "plivo",
    "sms77",
    "sms-central",
    "sns",
    "telnyx",
    "twilio",
    "gupshup",
    "firetext",
    "infobip-sms",
    "burst-sms",
    "bulk-sms",
    "isend-sms",
    "forty-six-elks",
    "kannel",
    "maqsam",
    "termii",
    "africas-talking",
    "svc-sms",
    "sendchamp",
    "generic-sms",
    "clicksend",
    "bandwidth",
    "messagebird",
    "simpletexting",
    "azure-sms",
    "ring-central",
    "brevo-sms",
    "eazy-sms",
    "mobishastra",
    "afro-message",
    "unifonic",
    "smsmode",
    "imedia",
    "clickatell",
];

const PUSH: &[&str] = &["fcm", "apns", "expo", "one-signal", "pushpad", "push-webhook", "pusher-beams", "appio"];

const CHAT: &[&str] = &[
    "slack",
    "discord",
    "msteams",
    "mattermost",
    "ryver",
    "zulip",
    "grafana-on-call",
    "getstream",
    "rocket-chat",
    "whatsapp-business",
    "chat-webhook",
    "svc-slack",
];

/// The provider ids of `channel` (empty for an unknown channel).
pub fn providers_of(channel: &str) -> &'static [&'static str] {
    match channel {
        "in_app" => IN_APP,
        "email" => EMAIL,
        "sms" => SMS,
        "push" => PUSH,
        "chat" => CHAT,
        _ => &[],
    }
}

/// The channel `provider_id` delivers on, if it is a known provider.
pub fn channel_of(provider_id: &str) -> Option<&'static str> {
    CHANNELS.into_iter().find(|channel| providers_of(channel).contains(&provider_id))
}

/// Whether integrations of `channel` can be primary.
pub fn supports_primary(channel: &str) -> bool {
    CHANNELS_WITH_PRIMARY.contains(&channel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_belongs_to_exactly_one_channel() {
        let all: Vec<&str> = CHANNELS.iter().flat_map(|channel| providers_of(channel).iter().copied()).collect();
        assert_eq!(all.len(), 1 + 20 + 35 + 8 + 12);
        for provider in &all {
            assert_eq!(all.iter().filter(|other| *other == provider).count(), 1, "{provider} listed twice");
        }
    }

    #[test]
    fn providers_map_to_their_channel() {
        assert_eq!(channel_of("svc"), Some("in_app"));
        assert_eq!(channel_of("sendgrid"), Some("email"));
        assert_eq!(channel_of("clickatell"), Some("sms"));
        assert_eq!(channel_of("grafana-on-call"), Some("chat"));
        assert_eq!(channel_of("pusher-beams"), Some("push"));
        assert_eq!(channel_of("carrier-pigeon"), None);
        assert!(providers_of("fax").is_empty());
    }

    #[test]
    fn only_email_and_sms_have_primaries() {
        assert!(supports_primary("email") && supports_primary("sms"));
        assert!(!supports_primary("chat") && !supports_primary("in_app") && !supports_primary("push"));
    }
}
