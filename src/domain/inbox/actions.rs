//! Completing and reverting a notification's action buttons. The in-app step stores them in the
//! message's `cta` (`{action: {status, buttons: [{type, content}]}}`); a completion is recorded there
//! as the reference service does: `status` `done` and `result.type` the button completed, so at most
//! one of the two is completed at a time. A `done` without a `result` (written before this) counts
//! for both buttons.

use chrono::Utc;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};

use super::events::{record_inbox_events, InboxChange, InboxMessage};
use super::mark::lock_visible;
use super::InboxSubscriber;
use crate::db::schema::messages;
use crate::domain::messages::{with_relations, Message, StoredMessage};
use crate::error::{AppError, AppResult, FieldError};

/// An action button of a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionType {
    Primary,
    Secondary,
}

impl ActionType {
    pub fn name(self) -> &'static str {
        match self {
            ActionType::Primary => "primary",
            ActionType::Secondary => "secondary",
        }
    }
}

/// Whether the `cta` of a message records `action` as completed.
pub fn is_completed(cta: &Value, action: ActionType) -> bool {
    cta.pointer("/action/status").and_then(Value::as_str) == Some("done")
        && cta.pointer("/action/result/type").and_then(Value::as_str).is_none_or(|done| done == action.name())
}

/// The `cta` with `action` completed, or reverted (a revert of a button not completed changes nothing).
fn with_action(mut cta: Value, action: ActionType, completed: bool) -> Value {
    let was_completed = is_completed(&cta, action);
    if let Some(state) = cta.get_mut("action").and_then(Value::as_object_mut) {
        if completed {
            state.insert("status".into(), json!("done"));
            state.insert("result".into(), json!({"type": action.name()}));
        } else if was_completed {
            state.insert("status".into(), json!("pending"));
            state.remove("result");
        }
    }
    cta
}

/// Completes (or reverts) `action` of the notification `id` and returns it; 404 for an id that is not
/// the subscriber's, 422 when the notification has no such button.
pub async fn update_inbox_action(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    id: &str,
    action: ActionType,
    completed: bool,
) -> AppResult<Message> {
    let row = conn
        .transaction::<_, AppError, _>(async |conn| {
            let row = lock_visible(conn, subscriber, id).await?;
            let buttons = row.cta.pointer("/action/buttons").and_then(Value::as_array);
            let has_button = buttons.is_some_and(|buttons| {
                buttons.iter().any(|button| button.get("type").and_then(Value::as_str) == Some(action.name()))
            });
            if !has_button {
                let message = format!("the notification has no {} action", action.name());
                return Err(AppError::Validation(vec![FieldError::new("actionType", message, action.name())]));
            }
            let updated: StoredMessage = diesel::update(messages::table.find(row.id))
                .set((messages::cta.eq(with_action(row.cta, action, completed)), messages::updated_at.eq(Utc::now())))
                .returning(StoredMessage::as_returning())
                .get_result(conn)
                .await?;
            let in_app = InboxMessage::in_app_of([&updated]);
            record_inbox_events(conn, InboxChange::Action { completed }, &in_app).await?;
            Ok(updated)
        })
        .await?;
    let mut changed = with_relations(conn, subscriber.tenant.environment_id, vec![row]).await?;
    Ok(changed.pop().expect("one row in, one message out"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completing_one_button_leaves_the_other_and_a_revert_undoes_only_its_own() {
        let cta = json!({"action": {"status": "pending", "buttons": [{"type": "primary"}, {"type": "secondary"}]}});
        let primary = with_action(cta.clone(), ActionType::Primary, true);
        assert!(is_completed(&primary, ActionType::Primary) && !is_completed(&primary, ActionType::Secondary));
        assert_eq!(with_action(primary.clone(), ActionType::Secondary, false), primary);
        let reverted = with_action(primary, ActionType::Primary, false);
        assert!(!is_completed(&reverted, ActionType::Primary));
        assert_eq!(reverted, cta);
        let legacy = json!({"action": {"status": "done"}});
        assert!(is_completed(&legacy, ActionType::Primary) && is_completed(&legacy, ActionType::Secondary));
    }
}
