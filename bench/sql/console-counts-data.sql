-- the console-counts comparison's data: 200,000 rows waiting in 20 apps × 3 kinds, an hour of history (1,000,000 rows)
INSERT INTO outbox (id, app_id, source_kind, payload, next_attempt_at)
SELECT gen_random_uuid(), ('00000000-0000-0000-0000-0000000000' || lpad((i % 20)::text, 2, '0'))::uuid,
       (ARRAY['webhook','invoke','cron'])[1 + i % 3], '{"n":1}', now() - (i % 1000) * interval '1 ms'
FROM generate_series(1, 200000) i;
INSERT INTO delivery_history (outbox_id, app_id, source_kind, trigger_depth, outcome, attempt_count, created_at, finished_at)
SELECT gen_random_uuid(), ('00000000-0000-0000-0000-0000000000' || lpad((i % 20)::text, 2, '0'))::uuid,
       (ARRAY['webhook','invoke','cron'])[1 + i % 3], 0, CASE WHEN i % 100 = 0 THEN 'dead' ELSE 'delivered' END, 1 + i % 2,
       now() - interval '1 hour' + i * interval '3.6 ms', now() - interval '1 hour' + i * interval '3.6 ms'
FROM generate_series(1, 1000000) i;
VACUUM ANALYZE outbox; VACUUM ANALYZE delivery_history;
