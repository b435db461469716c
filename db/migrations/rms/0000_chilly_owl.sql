CREATE TABLE `audit_events` (
	`event_id` text PRIMARY KEY NOT NULL,
	`at` text NOT NULL,
	`kind` text NOT NULL,
	`actor` text NOT NULL,
	`authority_source` text NOT NULL,
	`resource_kind` text,
	`resource_id` text,
	`outcome` text NOT NULL,
	`details` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_at` ON `audit_events` (`at`);--> statement-breakpoint
CREATE INDEX `audit_events_kind` ON `audit_events` (`kind`,`at`);--> statement-breakpoint
CREATE TABLE `desired_resources` (
	`kind` text NOT NULL,
	`resource_id` text NOT NULL,
	`document` text NOT NULL,
	`hash` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL,
	PRIMARY KEY(`kind`, `resource_id`)
);
--> statement-breakpoint
CREATE TABLE `execution_approvals` (
	`approval_id` text PRIMARY KEY NOT NULL,
	`proposal_ref` text NOT NULL,
	`decision` text NOT NULL,
	`policy_approved` integer NOT NULL,
	`human_approved` integer NOT NULL,
	`decided_at` text,
	`decided_by` text NOT NULL,
	`recorded_at` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `learning_proposals` (
	`proposal_id` text PRIMARY KEY NOT NULL,
	`agent_slug` text NOT NULL,
	`agent_id` text NOT NULL,
	`change` text NOT NULL,
	`change_hash` text NOT NULL,
	`proposer` text NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`reviewed_at` text,
	`reviewer` text,
	`review_reason` text,
	`activated_at` text,
	`activated_by` text
);
--> statement-breakpoint
CREATE INDEX `learning_proposals_agent` ON `learning_proposals` (`agent_slug`,`created_at`);--> statement-breakpoint
CREATE TABLE `lease_transitions` (
	`transition_id` text PRIMARY KEY NOT NULL,
	`lease_name` text NOT NULL,
	`at` text NOT NULL,
	`transition` text NOT NULL,
	`from_holder` text,
	`to_holder` text,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `lease_transitions_at` ON `lease_transitions` (`lease_name`,`at`);--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text,
	`acquired_at` text,
	`renewed_at` text,
	`expires_at` text,
	`duration_s` integer NOT NULL,
	`renew_count` integer NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`event_id` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` text NOT NULL,
	`last_error` text,
	`delivered_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `patch_plans` (
	`plan_id` text PRIMARY KEY NOT NULL,
	`created_at` text NOT NULL,
	`created_by` text NOT NULL,
	`base_host_hash` text NOT NULL,
	`plan_hash` text NOT NULL,
	`changes` text NOT NULL,
	`operations` text NOT NULL,
	`prune_unmanaged` integer NOT NULL,
	`status` text NOT NULL,
	`rollout_id` text
);
--> statement-breakpoint
CREATE TABLE `reconcile_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`trigger` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`outcome` text NOT NULL,
	`drift_items` integer,
	`max_severity` text,
	`host_hash` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `reconcile_runs_started` ON `reconcile_runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `rollouts` (
	`rollout_id` text PRIMARY KEY NOT NULL,
	`plan_id` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text NOT NULL,
	`actor` text NOT NULL,
	`status` text NOT NULL,
	`operations` text NOT NULL,
	`host_hash_before` text NOT NULL,
	`host_hash_after` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `rollouts_started` ON `rollouts` (`started_at`);