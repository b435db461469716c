-- Full-text index over the current title and body of each article (external content: the text
-- lives once, in articles; triggers keep the index in step). BM25 ranks; unicode61 folds case
-- and diacritics so "Zurich" finds "Zürich".
CREATE VIRTUAL TABLE articles_fts USING fts5(title, body, content='articles', content_rowid='seq', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER articles_fts_insert AFTER INSERT ON articles BEGIN
  INSERT INTO articles_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
END;
--> statement-breakpoint
CREATE TRIGGER articles_fts_delete AFTER DELETE ON articles BEGIN
  INSERT INTO articles_fts(articles_fts, rowid, title, body) VALUES ('delete', old.seq, old.title, old.body);
END;
--> statement-breakpoint
CREATE TRIGGER articles_fts_update AFTER UPDATE OF title, body ON articles BEGIN
  INSERT INTO articles_fts(articles_fts, rowid, title, body) VALUES ('delete', old.seq, old.title, old.body);
  INSERT INTO articles_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
END;
