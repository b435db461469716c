CREATE TABLE `contact_deliveries` (
	`intake_id` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`last_error` text,
	`last_status` integer,
	`delivered_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`intake_id`) REFERENCES `contact_intakes`(`intake_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `contact_deliveries_due` ON `contact_deliveries` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `contact_intakes` (
	`intake_id` text PRIMARY KEY NOT NULL,
	`received_at` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`interest` text NOT NULL,
	`message` text NOT NULL,
	`optional` text NOT NULL,
	`delivery` text NOT NULL
);
