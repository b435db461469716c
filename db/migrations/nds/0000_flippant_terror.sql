CREATE TABLE `accounts` (
	`account_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`paddle_customer_id` text,
	`subscription_id` text,
	`subscription_status` text,
	`subscription_updated_at` text
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`account_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `article_bands` (
	`band_key` integer NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `article_bands_pk` ON `article_bands` (`band_key`,`seq`);--> statement-breakpoint
CREATE INDEX `article_bands_seq` ON `article_bands` (`seq`);--> statement-breakpoint
CREATE TABLE `article_entities` (
	`seq` integer NOT NULL,
	`entity` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `article_entities_pk` ON `article_entities` (`entity`,`seq`);--> statement-breakpoint
CREATE INDEX `article_entities_seq` ON `article_entities` (`seq`);--> statement-breakpoint
CREATE TABLE `article_vectors` (
	`seq` integer PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`vector` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `article_versions` (
	`article_id` text NOT NULL,
	`version` integer NOT NULL,
	`content_hash` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`published_at` text,
	`job_id` text,
	`recorded_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `article_versions_pk` ON `article_versions` (`article_id`,`version`);--> statement-breakpoint
CREATE TABLE `articles` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`article_id` text NOT NULL,
	`canonical_url` text NOT NULL,
	`source` text NOT NULL,
	`source_name` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`language` text NOT NULL,
	`published_at` text,
	`entities` text NOT NULL,
	`version` integer NOT NULL,
	`content_hash` text NOT NULL,
	`minhash` blob NOT NULL,
	`cluster_id` text NOT NULL,
	`cluster_similarity` real NOT NULL,
	`first_seen_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `articles_article_id_unique` ON `articles` (`article_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `articles_canonical_url_unique` ON `articles` (`canonical_url`);--> statement-breakpoint
CREATE INDEX `articles_published` ON `articles` (`published_at`);--> statement-breakpoint
CREATE INDEX `articles_cluster` ON `articles` (`cluster_id`);--> statement-breakpoint
CREATE TABLE `case_evidence` (
	`evidence_id` text PRIMARY KEY NOT NULL,
	`case_id` text NOT NULL,
	`kind` text NOT NULL,
	`ref` text NOT NULL,
	`origin` text NOT NULL,
	`detail` text NOT NULL,
	`added_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `case_evidence_ref` ON `case_evidence` (`case_id`,`kind`,`ref`);--> statement-breakpoint
CREATE INDEX `case_evidence_case` ON `case_evidence` (`case_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`global_event_id` text PRIMARY KEY NOT NULL,
	`day` text NOT NULL,
	`date_added` text NOT NULL,
	`event_code` text NOT NULL,
	`root_code` text NOT NULL,
	`actor1` text,
	`actor2` text,
	`goldstein` real,
	`num_mentions` integer NOT NULL,
	`avg_tone` real,
	`country_code` text,
	`source_url` text
);
--> statement-breakpoint
CREATE INDEX `events_date_added` ON `events` (`date_added`);--> statement-breakpoint
CREATE TABLE `exports` (
	`export_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`state` text NOT NULL,
	`request` text NOT NULL,
	`format` text NOT NULL,
	`content` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ingest_jobs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`source` text NOT NULL,
	`mode` text NOT NULL,
	`state` text NOT NULL,
	`request` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`counts` text NOT NULL,
	`errors` text NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `ingest_jobs_state` ON `ingest_jobs` (`state`,`created_at`);--> statement-breakpoint
CREATE TABLE `paddle_notifications` (
	`notification_id` text PRIMARY KEY NOT NULL,
	`event_type` text NOT NULL,
	`account_id` text,
	`outcome` text NOT NULL,
	`received_at` text NOT NULL,
	`payload` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `research_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`state` text NOT NULL,
	`request` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`results` text,
	`error` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `research_runs_state` ON `research_runs` (`state`,`created_at`);--> statement-breakpoint
CREATE TABLE `snapshot_files` (
	`snapshot_id` text NOT NULL,
	`name` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` blob NOT NULL,
	`sha256` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `snapshot_files_pk` ON `snapshot_files` (`snapshot_id`,`name`);--> statement-breakpoint
CREATE TABLE `snapshots` (
	`snapshot_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`state` text NOT NULL,
	`manifest` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `support_cases` (
	`case_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`subject` text NOT NULL,
	`description` text NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL
);
