CREATE TABLE `delivery_breaker_phases` (
	`phase` text PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `issue_status_counts` (
	`status` text PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deliveries_leased_idx` ON `deliveries` (`locked_until`,`next_attempt_at`) WHERE locked_until IS NOT NULL;--> statement-breakpoint
-- Breakers by phase and issues by status are kept by triggers, in the transaction of each write
-- (cascades included), so /metrics reads a few rows instead of grouping whole tables on every
-- scrape. They start exact from what the tables hold now. (The outbox's queue figures are kept
-- in memory: a trigger on its hot path cost ~3 µs a row; see docs/performance.md.)
INSERT INTO `delivery_breaker_phases` (phase, n)
  SELECT phase, count(*) FROM `delivery_breakers` GROUP BY phase;
--> statement-breakpoint
INSERT INTO `issue_status_counts` (status, n)
  SELECT status, count(*) FROM `issues` GROUP BY status;
--> statement-breakpoint
CREATE TRIGGER `delivery_breakers_phases_insert` AFTER INSERT ON `delivery_breakers` BEGIN
  INSERT INTO `delivery_breaker_phases` (phase, n) VALUES (new.phase, 1)
    ON CONFLICT (phase) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `delivery_breakers_phases_delete` AFTER DELETE ON `delivery_breakers` BEGIN
  UPDATE `delivery_breaker_phases` SET n = n - 1 WHERE phase = old.phase;
END;
--> statement-breakpoint
CREATE TRIGGER `delivery_breakers_phases_update` AFTER UPDATE OF phase ON `delivery_breakers`
  WHEN old.phase IS NOT new.phase BEGIN
  UPDATE `delivery_breaker_phases` SET n = n - 1 WHERE phase = old.phase;
  INSERT INTO `delivery_breaker_phases` (phase, n) VALUES (new.phase, 1)
    ON CONFLICT (phase) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `issues_status_counts_insert` AFTER INSERT ON `issues` BEGIN
  INSERT INTO `issue_status_counts` (status, n) VALUES (new.status, 1)
    ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `issues_status_counts_delete` AFTER DELETE ON `issues` BEGIN
  UPDATE `issue_status_counts` SET n = n - 1 WHERE status = old.status;
END;
--> statement-breakpoint
CREATE TRIGGER `issues_status_counts_update` AFTER UPDATE OF status ON `issues`
  WHEN old.status IS NOT new.status BEGIN
  UPDATE `issue_status_counts` SET n = n - 1 WHERE status = old.status;
  INSERT INTO `issue_status_counts` (status, n) VALUES (new.status, 1)
    ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
