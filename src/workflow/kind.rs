//! What a job runs: the trigger, or one of the eight kinds of workflow steps. Both are stored in text
//! columns by their API spelling (`workflow_steps.type`, `jobs.type`).

use std::str::FromStr;

use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::sql_types::Text;

use super::columns::{named_enum, text_column, UnknownVariant};

named_enum! {
    /// The eight kinds of workflow steps.
    #[derive(AsExpression, FromSqlRow)]
    #[diesel(sql_type = Text)]
    pub enum StepKind ("step type") {
        InApp = "in_app",
        Email = "email",
        Sms = "sms",
        Chat = "chat",
        Push = "push",
        Digest = "digest",
        Delay = "delay",
        Custom = "custom",
    }
}
text_column!(StepKind);

impl StepKind {
    /// The delivery channel of a channel step (`None` for digest, delay and custom).
    pub fn channel(self) -> Option<&'static str> {
        self.is_channel().then(|| self.as_str())
    }

    /// Whether the step delivers a message (in-app, email, SMS, chat, push).
    pub fn is_channel(self) -> bool {
        match self {
            StepKind::InApp | StepKind::Email | StepKind::Sms | StepKind::Chat | StepKind::Push => true,
            StepKind::Digest | StepKind::Delay | StepKind::Custom => false,
        }
    }
}

/// The provider of internal steps (trigger, delay, digest, custom).
pub const INTERNAL_PROVIDER: &str = "svc";

/// What a job runs: position 0 of a notification is its trigger, the others its workflow's steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, AsExpression, FromSqlRow)]
#[diesel(sql_type = Text)]
pub enum JobKind {
    Trigger,
    Step(StepKind),
}
text_column!(JobKind);

impl JobKind {
    const TRIGGER: &'static str = "trigger";

    /// Whether running the job reaches nothing outside the database (no provider, webhook or
    /// endpoint call, no digest window of other notifications to merge into): the worker runs it in
    /// the transaction that claims it and writes its outcome there (`engine::worker`).
    pub fn runs_in_database(self) -> bool {
        matches!(self, JobKind::Trigger | JobKind::Step(StepKind::InApp | StepKind::Delay))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Trigger => Self::TRIGGER,
            JobKind::Step(kind) => kind.as_str(),
        }
    }

    /// The step kind, for a step's job.
    pub fn step(self) -> Option<StepKind> {
        match self {
            JobKind::Trigger => None,
            JobKind::Step(kind) => Some(kind),
        }
    }
}

impl FromStr for JobKind {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == Self::TRIGGER {
            return Ok(JobKind::Trigger);
        }
        text.parse().map(JobKind::Step).map_err(|_| UnknownVariant { what: "job type", text: text.to_string() })
    }
}

impl serde::Serialize for JobKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for JobKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_back_their_own_spelling_and_nothing_else() {
        for kind in StepKind::ALL {
            assert_eq!(kind.as_str().parse::<StepKind>(), Ok(*kind));
            assert_eq!(kind.as_str().parse::<JobKind>(), Ok(JobKind::Step(*kind)));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!("trigger".parse::<JobKind>(), Ok(JobKind::Trigger));
        assert!("trigger".parse::<StepKind>().is_err());
        assert!("In_App".parse::<StepKind>().is_err());
        assert_eq!(StepKind::InApp.channel(), Some("in_app"));
        assert_eq!(StepKind::Delay.channel(), None);
    }
}
