CREATE TABLE `als_idempotency` (
	`operation` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`proposal_id` text NOT NULL,
	`response` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`operation`, `idempotency_key`)
);
--> statement-breakpoint
CREATE TABLE `als_proposals` (
	`proposal_id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`run_id` text,
	`replay_id` text,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`risk_class` text,
	`replay_verdict` text NOT NULL,
	`service_mode` text NOT NULL,
	`current_decision` text,
	`candidate_decision` text,
	`candidate_hash` text NOT NULL,
	`provenance_hash` text NOT NULL,
	`decision_delta_hash` text,
	`state` text NOT NULL,
	`revalidate_required` integer NOT NULL,
	`oscillation_detected` integer NOT NULL,
	`approval_id` text,
	`policy_approved` integer NOT NULL,
	`human_approved` integer NOT NULL,
	`stale_invalidated` integer NOT NULL,
	`approval_checked_at` text,
	`runtime_state_before` text,
	`runtime_state_after` text,
	`activated_at` text,
	`rollback_reason` text,
	`rollback_restored` integer,
	`rolled_back_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `als_proposals_target` ON `als_proposals` (`target_type`,`target_id`,`state`);--> statement-breakpoint
CREATE INDEX `als_proposals_state` ON `als_proposals` (`state`);--> statement-breakpoint
CREATE TABLE `als_replays` (
	`replay_id` text PRIMARY KEY NOT NULL,
	`run_id` text,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`threshold_contract` text NOT NULL,
	`baseline_metrics` text NOT NULL,
	`candidate_metrics` text NOT NULL,
	`workload_similar` integer NOT NULL,
	`verdict` text NOT NULL,
	`threshold_pass` integer NOT NULL,
	`evaluation` text NOT NULL,
	`candidate_hash` text NOT NULL,
	`provenance_hash` text NOT NULL,
	`evaluated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `als_replays_evaluated_at` ON `als_replays` (`evaluated_at`);--> statement-breakpoint
CREATE TABLE `als_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`tenant_ref` text NOT NULL,
	`trace_id` text NOT NULL,
	`correlation_id` text NOT NULL,
	`outcome` text NOT NULL,
	`guardrail_decision` text NOT NULL,
	`family_version_set` text NOT NULL,
	`state` text NOT NULL,
	`signal_emitted` integer NOT NULL,
	`sampled_in` integer NOT NULL,
	`priority_score` integer NOT NULL,
	`run_hash` text NOT NULL,
	`provenance_hash` text NOT NULL,
	`service_mode` text NOT NULL,
	`recorded_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `als_runs_trace_id_unique` ON `als_runs` (`trace_id`);--> statement-breakpoint
CREATE INDEX `als_runs_correlation` ON `als_runs` (`correlation_id`);--> statement-breakpoint
CREATE INDEX `als_runs_state` ON `als_runs` (`state`);--> statement-breakpoint
CREATE TABLE `als_runtime_targets` (
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`active_proposal_id` text,
	`candidate_hash` text,
	`decision` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`target_type`, `target_id`)
);
--> statement-breakpoint
CREATE TABLE `als_transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`proposal_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`trigger` text NOT NULL,
	`from_state` text,
	`to_state` text NOT NULL,
	`state_key_before` text,
	`state_key_after` text,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `als_transitions_target` ON `als_transitions` (`target_type`,`target_id`,`at`);--> statement-breakpoint
CREATE INDEX `als_transitions_to_state` ON `als_transitions` (`to_state`,`at`);