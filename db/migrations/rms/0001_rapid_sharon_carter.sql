CREATE TABLE `outbox_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`target` text NOT NULL,
	`payload` text NOT NULL,
	`headers` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` text NOT NULL,
	`claimed_until` text,
	`claimed_by` text,
	`last_error` text,
	`last_status` integer,
	`created_at` text NOT NULL,
	`delivered_at` text
);
--> statement-breakpoint
CREATE INDEX `outbox_messages_due` ON `outbox_messages` (`state`,`next_attempt_at`);--> statement-breakpoint
-- Keep every audit event: outbox rows move to the shared outbox, target event-sink, same ids.
INSERT INTO `outbox_messages` (`id`, `target`, `payload`, `headers`, `state`, `attempts`, `next_attempt_at`, `claimed_until`, `claimed_by`, `last_error`, `last_status`, `created_at`, `delivered_at`)
SELECT `event_id`, 'event-sink', `payload`, '{}', `state`, `attempts`, `next_attempt_at`, NULL, NULL, `last_error`, NULL, `created_at`, `delivered_at` FROM `outbox`;