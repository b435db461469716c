CREATE TABLE `catalog_baselines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`taken_at` text NOT NULL,
	`content_hash` text NOT NULL,
	`document` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` text NOT NULL,
	`acquired_at` text NOT NULL,
	`renewed_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `syncs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` text NOT NULL,
	`ok` integer NOT NULL,
	`workflow_count` integer,
	`tool_version` text,
	`error` text
);
--> statement-breakpoint
CREATE TABLE `upgrade_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`created_at` text NOT NULL,
	`trigger` text NOT NULL,
	`document` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `upgrade_reports_created` ON `upgrade_reports` (`created_at`);--> statement-breakpoint
CREATE TABLE `upstream_releases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`checked_at` text NOT NULL,
	`version` text NOT NULL,
	`published_at` text,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `workflow_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workflow_id` text NOT NULL,
	`content_hash` text NOT NULL,
	`document` text NOT NULL,
	`taken_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_versions_content` ON `workflow_versions` (`workflow_id`,`content_hash`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`workflow_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`active` integer NOT NULL,
	`document` text NOT NULL,
	`content_hash` text NOT NULL,
	`tool_updated_at` text,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`removed_at` text
);
