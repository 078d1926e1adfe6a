DROP INDEX notifications_transaction_subscriber_key;
CREATE INDEX notifications_environment_transaction_idx ON notifications (environment_id, transaction_id);
DROP TABLE topic_fanouts;
DROP TABLE topic_subscribers;
DROP TABLE topics;
