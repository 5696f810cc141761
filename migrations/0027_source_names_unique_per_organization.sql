-- Older versions allowed two sources of one organization to share a name. Before the unique
-- index, every later one of a name is renamed "<name> (2)", "<name> (3)"… in creation order
-- (the first keeps its name); should that name be taken already, "<name> (<source id>)" is used
-- instead, which no other source can hold, so this migration cannot fail on existing data.
CREATE TEMP TABLE `source_renames` AS
	SELECT `id`, `organization_id`, `name`, `name` || ' (' || `rank` || ')' AS `new_name`
	FROM (
		SELECT `id`, `organization_id`, `name`,
			ROW_NUMBER() OVER (PARTITION BY `organization_id`, `name` ORDER BY `created_at`, `id`) AS `rank`
		FROM `sources`
	)
	WHERE `rank` > 1;
--> statement-breakpoint
UPDATE `source_renames` SET `new_name` = `name` || ' (' || `id` || ')'
	WHERE EXISTS (
		SELECT 1 FROM `sources` AS `s`
		WHERE `s`.`organization_id` = `source_renames`.`organization_id` AND `s`.`name` = `source_renames`.`new_name`
	);
--> statement-breakpoint
UPDATE `sources` SET `name` = (SELECT `new_name` FROM `source_renames` AS `r` WHERE `r`.`id` = `sources`.`id`)
	WHERE `id` IN (SELECT `id` FROM `source_renames`);
--> statement-breakpoint
DROP TABLE `source_renames`;
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_org_name_unique` ON `sources` (`organization_id`,`name`);
