CREATE TABLE `mailbox_messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` text NOT NULL,
	`topic` text NOT NULL,
	`message` text NOT NULL,
	`headers` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mailbox_messages_message_id_unique` ON `mailbox_messages` (`message_id`);--> statement-breakpoint
CREATE INDEX `mailbox_messages_topic` ON `mailbox_messages` (`topic`,`seq`);--> statement-breakpoint
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
CREATE INDEX `outbox_messages_due` ON `outbox_messages` (`state`,`next_attempt_at`);