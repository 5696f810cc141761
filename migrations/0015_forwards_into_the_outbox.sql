-- Forward records written before the outbox become ended forward deliveries, one per record,
-- each with its one attempt (same id), so GET .../forwards lists them as before (decisions §6).
INSERT INTO `deliveries` (`id`, `kind`, `organization_id`, `subject_id`, `destination_key`, `webhook_id`,
  `status`, `attempts`, `max_retries`, `attempts_before_requeue`, `next_attempt_at`, `locked_until`,
  `last_status_code`, `last_error_type`, `last_error_code`, `last_error_message`, `last_latency_ms`,
  `created_at`, `updated_at`)
SELECT 'migrated-' || f.`id`, 'forward', e.`organization_id`, f.`request_id`, 'forward:' || r.`endpoint_id`,
  'msg_' || f.`id`,
  CASE WHEN f.`status_code` BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END,
  f.`attempt`, 2, 0, NULL, NULL, f.`status_code`,
  CASE WHEN f.`status_code` BETWEEN 200 AND 299 THEN NULL
       WHEN f.`status_code` IN (401, 403) THEN 'authentication_error'
       WHEN f.`status_code` IS NOT NULL THEN 'http_error'
       ELSE 'network_error' END,
  CASE WHEN f.`status_code` BETWEEN 200 AND 299 THEN NULL
       WHEN f.`status_code` IS NOT NULL THEN CAST(f.`status_code` AS TEXT)
       WHEN instr(coalesce(f.`error`, ''), ': ') > 0 THEN substr(f.`error`, 1, instr(f.`error`, ': ') - 1)
       ELSE coalesce(f.`error`, 'unknown') END,
  CASE WHEN f.`status_code` IS NOT NULL THEN NULL
       WHEN instr(coalesce(f.`error`, ''), ': ') > 0 THEN substr(f.`error`, instr(f.`error`, ': ') + 2)
       ELSE '' END,
  f.`latency_ms`, f.`created_at`, f.`created_at`
FROM `request_forwards` f
JOIN `captured_requests` r ON r.`id` = f.`request_id`
LEFT JOIN `debug_endpoints` e ON e.`id` = r.`endpoint_id`;
--> statement-breakpoint
INSERT INTO `delivery_attempts` (`id`, `delivery_id`, `attempt`, `url`, `method`, `status_code`,
  `response_headers`, `response_body`, `latency_ms`, `error_type`, `error_code`, `error_message`, `created_at`)
SELECT f.`id`, d.`id`, f.`attempt`, f.`url`, f.`method`, f.`status_code`,
  CASE WHEN json_valid(f.`response_headers`)
       THEN (SELECT json_group_array(json_array(h.`key`, h.`value`)) FROM json_each(f.`response_headers`) h)
       ELSE '[]' END,
  coalesce(f.`response_body`, ''), coalesce(f.`latency_ms`, 0),
  d.`last_error_type`, d.`last_error_code`, d.`last_error_message`, f.`created_at`
FROM `request_forwards` f
JOIN `deliveries` d ON d.`id` = 'migrated-' || f.`id`;
--> statement-breakpoint
DROP TABLE `request_forwards`;
