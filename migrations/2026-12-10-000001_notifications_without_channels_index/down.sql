CREATE INDEX notifications_channels_idx ON notifications USING gin (channels);
