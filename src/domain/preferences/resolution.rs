//! Which channels a workflow may use for a subscriber. Later wins: the workflow's default, then the
//! subscriber's global preference, then the subscriber's preference for that workflow. A critical
//! workflow ignores the subscriber entirely.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Channel on/off flags; an absent flag leaves the decision to the level below.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelFlags {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_app: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<bool>,
}

/// Channels that preferences govern, in the order responses list them.
pub const PREFERENCE_CHANNELS: [&str; 5] = ["in_app", "email", "sms", "chat", "push"];

impl ChannelFlags {
    /// The flag of `channel` (`in_app`, `email`, `sms`, `chat`, `push`).
    pub fn get(&self, channel: &str) -> Option<bool> {
        match channel {
            "email" => self.email,
            "sms" => self.sms,
            "in_app" => self.in_app,
            "chat" => self.chat,
            "push" => self.push,
            _ => None,
        }
    }
}

/// Who decided a channel's effective preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreferenceSource {
    /// The subscriber set it (globally or for the workflow).
    Subscriber,
    /// The workflow's default applies.
    Template,
}

/// The effective preference of one channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelDecision {
    pub enabled: bool,
    pub source: PreferenceSource,
}

/// A workflow's own defaults, read from its stored `preferences`
/// (`{user?, default|workflow: {all: {enabled}, channels: {<channel>: {enabled}}}}`): the `user`
/// level, meant for subscribers, wins over the workflow level when present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkflowDefaults {
    pub enabled: bool,
    pub channels: ChannelFlags,
}

impl WorkflowDefaults {
    pub fn from_preferences(preferences: &Value) -> Self {
        let level = ["user", "default", "workflow"]
            .iter()
            .map(|key| &preferences[*key])
            .find(|level| level.is_object())
            .unwrap_or(&Value::Null);
        let all_enabled = level["all"]["enabled"].as_bool();
        let flag = |channel: &str| level["channels"][channel]["enabled"].as_bool().or(all_enabled);
        Self {
            enabled: all_enabled.unwrap_or(true),
            channels: ChannelFlags {
                email: flag("email"),
                sms: flag("sms"),
                in_app: flag("in_app"),
                chat: flag("chat"),
                push: flag("push"),
            },
        }
    }
}

/// Resolves `channel` for a subscriber: workflow default < subscriber global < subscriber per workflow.
pub fn resolve_channel(
    channel: &str,
    defaults: &WorkflowDefaults,
    global: &ChannelFlags,
    per_workflow: &ChannelFlags,
    critical: bool,
) -> ChannelDecision {
    let template =
        ChannelDecision { enabled: defaults.channels.get(channel).unwrap_or(true), source: PreferenceSource::Template };
    if critical {
        return template;
    }
    match per_workflow.get(channel).or(global.get(channel)) {
        Some(enabled) => ChannelDecision { enabled, source: PreferenceSource::Subscriber },
        None => template,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flags(email: Option<bool>) -> ChannelFlags {
        ChannelFlags { email, ..Default::default() }
    }

    #[test]
    fn later_levels_win_and_critical_ignores_the_subscriber() {
        let off_by_default = WorkflowDefaults { enabled: true, channels: flags(Some(false)) };
        let on_by_default = WorkflowDefaults { enabled: true, channels: ChannelFlags::default() };
        let (subscriber, template) = (PreferenceSource::Subscriber, PreferenceSource::Template);
        // (defaults, global, per workflow, critical) → (enabled, source)
        let table = [
            (on_by_default, None, None, false, (true, template)),
            (off_by_default, None, None, false, (false, template)),
            (off_by_default, Some(true), None, false, (true, subscriber)),
            (on_by_default, Some(false), None, false, (false, subscriber)),
            (on_by_default, Some(false), Some(true), false, (true, subscriber)),
            (on_by_default, Some(true), Some(false), false, (false, subscriber)),
            (off_by_default, None, Some(true), false, (true, subscriber)),
            (on_by_default, Some(false), Some(false), true, (true, template)),
            (off_by_default, Some(true), Some(true), true, (false, template)),
        ];
        for (row, (defaults, global, per_workflow, critical, (enabled, source))) in table.into_iter().enumerate() {
            let decision = resolve_channel("email", &defaults, &flags(global), &flags(per_workflow), critical);
            assert_eq!(decision, ChannelDecision { enabled, source }, "row {row}");
        }
    }

    #[test]
    fn other_channels_are_not_affected_by_an_email_flag() {
        let defaults = WorkflowDefaults { enabled: true, channels: ChannelFlags::default() };
        let decision = resolve_channel("sms", &defaults, &flags(Some(false)), &flags(Some(false)), false);
        assert_eq!(decision, ChannelDecision { enabled: true, source: PreferenceSource::Template });
    }

    #[test]
    fn workflow_defaults_read_channel_then_all_then_true() {
        let stored = json!({ "user": null, "default": { "all": { "enabled": false }, "channels": { "in_app": { "enabled": true } } } });
        let defaults = WorkflowDefaults::from_preferences(&stored);
        assert!(!defaults.enabled);
        assert_eq!(defaults.channels.in_app, Some(true));
        assert_eq!(defaults.channels.email, Some(false));

        let user_level = json!({ "user": { "channels": { "sms": { "enabled": false } } }, "workflow": { "all": { "enabled": true } } });
        let defaults = WorkflowDefaults::from_preferences(&user_level);
        assert_eq!(defaults.channels.sms, Some(false));
        assert_eq!(defaults.channels.email, None);
        assert!(WorkflowDefaults::from_preferences(&json!({})).enabled);
    }
}
