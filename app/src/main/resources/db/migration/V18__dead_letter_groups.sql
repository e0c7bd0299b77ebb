-- Dead letters grouped by failure (GET /admin/dead-letters/groups, replay and discard per group): a last error with
-- what differs from one failure of a kind to the next taken out, so that twenty rows of one failure are one group.
-- UUIDs become <id>, times (ISO 8601, with or without a zone) <time>, the other runs of digits <n>; the first 1,000
-- characters count. IMMUTABLE: the same error always falls into the same group. A new function: nothing is locked.
CREATE FUNCTION outbox_error_group(error text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
AS $$
    SELECT regexp_replace(
               regexp_replace(
                   regexp_replace(left(error, 1000),
                       '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', 'gi'),
                   '[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?',
                   '<time>', 'g'),
               '[0-9]+', '<n>', 'g')
$$;
