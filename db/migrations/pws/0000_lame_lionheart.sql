CREATE TABLE `pws_agents` (
	`project_id` text NOT NULL,
	`agent_key` text NOT NULL,
	`display_name` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `agent_key`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `pws_planning_cycles` (
	`project_id` text NOT NULL,
	`cycle_key` text NOT NULL,
	`title` text NOT NULL,
	`state` text NOT NULL,
	`starts_on` text,
	`ends_on` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `cycle_key`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `pws_delivery_items` (
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`provider` text NOT NULL,
	`external_id` text NOT NULL,
	`repository` text NOT NULL,
	`state` text NOT NULL,
	`data` text NOT NULL,
	`observed_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `kind`, `provider`, `external_id`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pws_delivery_kind_state` ON `pws_delivery_items` (`project_id`,`kind`,`state`);--> statement-breakpoint
CREATE TABLE `pws_handoffs` (
	`handoff_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`task_key` text NOT NULL,
	`from_agent` text NOT NULL,
	`to_agent` text NOT NULL,
	`summary` text NOT NULL,
	`state` text NOT NULL,
	`reason` text,
	`expires_at` text,
	`created_at` text NOT NULL,
	`decided_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pws_handoffs_project` ON `pws_handoffs` (`project_id`,`state`);--> statement-breakpoint
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
CREATE TABLE `pws_integration_state` (
	`project_id` text NOT NULL,
	`provider` text NOT NULL,
	`repository` text NOT NULL,
	`last_webhook_at` text,
	`last_poll_at` text,
	`last_result` text,
	`last_error` text,
	PRIMARY KEY(`project_id`, `provider`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `pws_lanes` (
	`project_id` text NOT NULL,
	`lane_key` text NOT NULL,
	`title` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`project_id`, `lane_key`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
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
CREATE TABLE `pws_planning_modules` (
	`project_id` text NOT NULL,
	`module_key` text NOT NULL,
	`title` text NOT NULL,
	`cycle_key` text,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `module_key`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `pws_oidc_logins` (
	`state` text PRIMARY KEY NOT NULL,
	`code_verifier` text NOT NULL,
	`nonce` text NOT NULL,
	`return_to` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `pws_planning_pages` (
	`project_id` text NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`repo_path` text NOT NULL,
	`sync_state` text NOT NULL,
	`repo_commit` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `slug`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `pws_projects` (
	`project_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`repo_provider` text,
	`repo_full_name` text,
	`next_task_seq` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `pws_sandbox_writes` (
	`project_id` text NOT NULL,
	`scenario` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`response` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pws_sandbox_writes_key` ON `pws_sandbox_writes` (`project_id`,`scenario`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `pws_support_handoffs` (
	`correlation_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`task_key` text NOT NULL,
	`ticket_id` text NOT NULL,
	`envelope` text NOT NULL,
	`received_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `pws_tasks` (
	`project_id` text NOT NULL,
	`task_key` text NOT NULL,
	`title` text NOT NULL,
	`lane` text NOT NULL,
	`status` text NOT NULL,
	`work_class` text NOT NULL,
	`work_item_truth_owner` text NOT NULL,
	`source_truth_owner` text NOT NULL,
	`source_reference_type` text NOT NULL,
	`source_reference` text,
	`workflow_state` text NOT NULL,
	`external_truth_state` text,
	`external_truth` integer NOT NULL,
	`missing_context` integer NOT NULL,
	`partial_visibility` integer NOT NULL,
	`writeback_guard_state` text NOT NULL,
	`case_lifecycle_guard` text,
	`lifecycle_completion_guard` text,
	`remediation` text NOT NULL,
	`cycle_key` text,
	`module_key` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `task_key`),
	FOREIGN KEY (`project_id`) REFERENCES `pws_projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pws_tasks_lane` ON `pws_tasks` (`project_id`,`lane`);--> statement-breakpoint
CREATE INDEX `pws_tasks_source` ON `pws_tasks` (`project_id`,`source_reference_type`,`source_reference`);