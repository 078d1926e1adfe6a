-- Messages by (environment, transactionId) served one read, the messages list's `transactionId` filter,
-- which now finds the trigger's notifications (notifications_transaction_subscriber_key) and their
-- messages (messages_notification_idx): a message's transactionId is always its notification's. The
-- index cost every delivered message an insert at a random leaf (transaction ids are the callers'
-- random keys), the kind of index entry that dirties a page of its own and, after each checkpoint,
-- writes that page whole to the WAL.
DROP INDEX messages_environment_transaction_idx;
