CREATE TABLE `approval_packets` (
	`name` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`target_doctype` text NOT NULL,
	`target_name` text NOT NULL,
	`context` text NOT NULL,
	`callback_token_hash` text NOT NULL,
	`correlation_id` text NOT NULL,
	`dispatch` text,
	`decision` text,
	`expires_at` text NOT NULL,
	`creation` text NOT NULL,
	`modified` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `approval_packets_target` ON `approval_packets` (`target_doctype`,`target_name`);--> statement-breakpoint
CREATE TABLE `fact_imports` (
	`import_id` text PRIMARY KEY NOT NULL,
	`imported_at` text NOT NULL,
	`source` text NOT NULL,
	`content_hash` text NOT NULL,
	`rows` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text,
	`status` integer,
	`headers` text NOT NULL,
	`body` blob,
	`locked_until` text,
	`created_at` text NOT NULL,
	`completed_at` text,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE TABLE `identity_facts` (
	`technical_subject` text PRIMARY KEY NOT NULL,
	`business_identity_id` text,
	`fact` text NOT NULL,
	`lifecycle_changed_at` text NOT NULL,
	`import_id` text NOT NULL,
	`imported_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `identity_facts_business` ON `identity_facts` (`business_identity_id`);--> statement-breakpoint
CREATE TABLE `integration_events` (
	`name` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`event_key` text NOT NULL,
	`status` text NOT NULL,
	`payload_hash` text NOT NULL,
	`payload` text NOT NULL,
	`reference_doctype` text,
	`reference_name` text,
	`outcome` text,
	`received_at` text NOT NULL,
	`modified_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `integration_events_key` ON `integration_events` (`source`,`event_key`);--> statement-breakpoint
CREATE INDEX `integration_events_at` ON `integration_events` (`received_at`);--> statement-breakpoint
CREATE TABLE `leads` (
	`name` text PRIMARY KEY NOT NULL,
	`email_id` text NOT NULL,
	`lead_name` text NOT NULL,
	`company_name` text,
	`phone` text,
	`source` text NOT NULL,
	`interest` text,
	`notes` text,
	`last_intake` text NOT NULL,
	`intake_count` integer NOT NULL,
	`creation` text NOT NULL,
	`modified` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `leads_email_id_unique` ON `leads` (`email_id`);--> statement-breakpoint
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
CREATE TABLE `purchase_invoices` (
	`name` text PRIMARY KEY NOT NULL,
	`supplier_intake` text NOT NULL,
	`supplier` text NOT NULL,
	`bill_no` text,
	`currency` text NOT NULL,
	`grand_total` real NOT NULL,
	`items` text NOT NULL,
	`docstatus` integer NOT NULL,
	`creation` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `purchase_invoices_supplier_intake_unique` ON `purchase_invoices` (`supplier_intake`);--> statement-breakpoint
CREATE TABLE `revenue_events` (
	`name` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`provider_event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`customer` text,
	`currency` text NOT NULL,
	`amount` real NOT NULL,
	`description` text,
	`integration_event` text NOT NULL,
	`sales_invoice` text,
	`posting_error` text,
	`creation` text NOT NULL,
	`modified` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `revenue_events_provider_event` ON `revenue_events` (`provider`,`provider_event_id`);--> statement-breakpoint
CREATE TABLE `sales_invoices` (
	`name` text PRIMARY KEY NOT NULL,
	`revenue_event` text NOT NULL,
	`customer` text NOT NULL,
	`currency` text NOT NULL,
	`grand_total` real NOT NULL,
	`items` text NOT NULL,
	`docstatus` integer NOT NULL,
	`creation` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sales_invoices_revenue_event_unique` ON `sales_invoices` (`revenue_event`);--> statement-breakpoint
CREATE TABLE `supplier_intakes` (
	`name` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`supplier_name` text,
	`bill_no` text,
	`currency` text,
	`grand_total` real,
	`payload` text NOT NULL,
	`integration_event` text NOT NULL,
	`purchase_invoice` text,
	`posting_error` text,
	`creation` text NOT NULL,
	`modified` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ticket_events` (
	`ticket_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`event` text NOT NULL,
	`integration_event` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_events_seq` ON `ticket_events` (`ticket_id`,`sequence`,`event`);