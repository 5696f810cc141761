CREATE TABLE `delivery_breaker_phases` (
	`phase` text PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `delivery_due_seconds` (
	`second` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `delivery_gauges` (
	`id` integer PRIMARY KEY NOT NULL,
	`queued` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `issue_status_counts` (
	`status` text PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deliveries_leased_idx` ON `deliveries` (`locked_until`,`next_attempt_at`) WHERE locked_until IS NOT NULL;--> statement-breakpoint
-- The /metrics gauges are kept by triggers, in the transaction of each write, so they are exact
-- through rollbacks, savepoints, cascades and kill -9, and a scrape reads a few rows instead of
-- counting the outbox (a million queued rows held the event loop for every scrape). They start
-- exact from what the tables hold now.
INSERT INTO `delivery_gauges` (id, queued)
  SELECT 1, count(*) FROM `deliveries` WHERE next_attempt_at IS NOT NULL;
--> statement-breakpoint
INSERT INTO `delivery_due_seconds` (second, n)
  SELECT CAST(next_attempt_at / 1000 AS INTEGER), count(*) FROM `deliveries`
   WHERE next_attempt_at IS NOT NULL GROUP BY 1;
--> statement-breakpoint
INSERT INTO `delivery_breaker_phases` (phase, n)
  SELECT phase, count(*) FROM `delivery_breakers` GROUP BY phase;
--> statement-breakpoint
INSERT INTO `issue_status_counts` (status, n)
  SELECT status, count(*) FROM `issues` GROUP BY status;
--> statement-breakpoint
-- A claim or a lease extension writes locked_until only: none of these triggers runs for it.
CREATE TRIGGER `deliveries_gauges_insert` AFTER INSERT ON `deliveries`
  WHEN new.next_attempt_at IS NOT NULL BEGIN
  UPDATE `delivery_gauges` SET queued = queued + 1 WHERE id = 1;
  INSERT INTO `delivery_due_seconds` (second, n)
    VALUES (CAST(new.next_attempt_at / 1000 AS INTEGER), 1)
    ON CONFLICT (second) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `deliveries_gauges_delete` AFTER DELETE ON `deliveries`
  WHEN old.next_attempt_at IS NOT NULL BEGIN
  UPDATE `delivery_gauges` SET queued = queued - 1 WHERE id = 1;
  UPDATE `delivery_due_seconds` SET n = n - 1
   WHERE second = CAST(old.next_attempt_at / 1000 AS INTEGER);
  DELETE FROM `delivery_due_seconds`
   WHERE second = CAST(old.next_attempt_at / 1000 AS INTEGER) AND n <= 0;
END;
--> statement-breakpoint
-- Runs only when the row changes second (or starts or ends): a retry, a breaker wait, an end.
CREATE TRIGGER `deliveries_gauges_update` AFTER UPDATE OF next_attempt_at ON `deliveries`
  WHEN CAST(old.next_attempt_at / 1000 AS INTEGER) IS NOT CAST(new.next_attempt_at / 1000 AS INTEGER)
BEGIN
  UPDATE `delivery_gauges`
     SET queued = queued + (new.next_attempt_at IS NOT NULL) - (old.next_attempt_at IS NOT NULL)
   WHERE id = 1;
  UPDATE `delivery_due_seconds` SET n = n - 1
   WHERE second = CAST(old.next_attempt_at / 1000 AS INTEGER);
  DELETE FROM `delivery_due_seconds`
   WHERE second = CAST(old.next_attempt_at / 1000 AS INTEGER) AND n <= 0;
  INSERT INTO `delivery_due_seconds` (second, n)
    SELECT CAST(new.next_attempt_at / 1000 AS INTEGER), 1 WHERE new.next_attempt_at IS NOT NULL
    ON CONFLICT (second) DO UPDATE SET n = n + 1;
END;
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
