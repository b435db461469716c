CREATE TABLE `contract_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`subject_kind` text NOT NULL,
	`subject` text NOT NULL,
	`version` text NOT NULL,
	`hash` text NOT NULL,
	`document` text NOT NULL,
	`first_seen_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contract_versions_subject_hash` ON `contract_versions` (`subject_kind`,`subject`,`hash`);--> statement-breakpoint
CREATE TABLE `observations` (
	`id` text PRIMARY KEY NOT NULL,
	`unit` text NOT NULL,
	`surface` text NOT NULL,
	`url` text NOT NULL,
	`observed_at` text NOT NULL,
	`ok` integer NOT NULL,
	`status` integer,
	`reason` text,
	`message` text,
	`latency_ms` integer NOT NULL,
	`body` text,
	`body_hash` text
);
--> statement-breakpoint
CREATE INDEX `observations_latest` ON `observations` (`unit`,`surface`,`observed_at`);