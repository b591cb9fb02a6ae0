-- Rows logged before event ids were kept per door: their row id is the id the
-- door sent, so a later redelivery from that door finds its row.
UPDATE `access_logs` SET `event_id` = `id` WHERE `event_id` IS NULL;
