-- The provider's id for a message (SendGrid's X-Message-Id, Twilio's sid, the SMTP Message-ID…): shown in
-- the execution details, and the key by which a provider's delivery-status webhook finds the message.
ALTER TABLE messages ADD COLUMN provider_message_id text;
CREATE INDEX messages_provider_message_id_idx ON messages (environment_id, provider_message_id)
    WHERE provider_message_id IS NOT NULL;
