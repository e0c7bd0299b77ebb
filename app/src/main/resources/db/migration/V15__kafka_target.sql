-- Kafka targets: a trigger {"type":"kafka","topic":...,"key":...} keeps the topic in target and which of a row's
-- values keys its records (orderingKey, rowId or appId) in target_key; the other target types have none. The
-- triggers table is small (one row per trigger): the check is replaced and validated at once, under the
-- catalogue lock of this migration only.
ALTER TABLE triggers ADD COLUMN target_key text;
ALTER TABLE triggers DROP CONSTRAINT triggers_target_type_check;
ALTER TABLE triggers ADD CONSTRAINT triggers_target_type_check
    CHECK (target_type IN ('webhook', 'handler', 'jms', 'kafka'));
ALTER TABLE triggers ADD CONSTRAINT triggers_target_key_check
    CHECK ((target_type = 'kafka') = (target_key IS NOT NULL) AND target_key IN ('orderingKey', 'rowId', 'appId'));
