ALTER TABLE `events` ADD `filtered_by` text;--> statement-breakpoint
-- Events of a source that had no bridge were stored as filtered; they are unrouted. A filtered
-- event related to no bridge can only be one of those (or one whose bridges were all deleted
-- since: it has no bridge now either).
UPDATE `event_states` SET `status` = 'unrouted'
 WHERE `status` = 'filtered'
   AND NOT EXISTS (SELECT 1 FROM `event_bridges` b WHERE b.`event_id` = `event_states`.`event_id`);
