ALTER TABLE `article_vectors` ADD `change` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `article_vectors_change` ON `article_vectors` (`change`);