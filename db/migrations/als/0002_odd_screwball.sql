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
-- Keep every stored answer: activate/rollback keys move to the shared idempotency store.
INSERT INTO `idempotency_keys` (`scope`, `key`, `fingerprint`, `status`, `headers`, `body`, `locked_until`, `created_at`, `completed_at`)
SELECT `operation`, `idempotency_key`, `request_hash`, 200, '{"content-type":"application/json"}', CAST(`response` AS BLOB), NULL, `created_at`, `created_at` FROM `als_idempotency`;
