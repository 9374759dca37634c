-- A Crush database of the layout of Crush 0.1 to 0.12 (its goose
-- migrations up to 20250627000000_add_provider_to_messages): no
-- is_summary_message (a summary is the message the session's
-- summary_message_id names), no todos, no read_files; a tool call of the
-- shape of then, with "type". Written by hand, the source of the
-- e5f6a7b8 mirror file in src/ (importer/crush's TestMirrorGolden).
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0), prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0), completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0), cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0), updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE, UNIQUE(path, session_id, version));
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT, FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE);
CREATE INDEX idx_messages_session_id ON messages (session_id);

INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (0, 1, '2025-07-31 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250424200609, 1, '2025-07-31 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250515105448, 1, '2025-07-31 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250624000000, 1, '2025-07-31 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250627000000, 1, '2025-07-31 03:00:00');

-- A session of July 2025: a prompt, a reply that edits a file, an answer;
-- the summary Crush made of it, then one more prompt.
INSERT INTO sessions VALUES ('e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', NULL, 'Add a --verbose flag', 6, 9000, 400, 0.021, 1753932700, 1753932000, '3d4e0005-5f60-4172-8394-a5b6c7d8e9f0');
INSERT INTO messages VALUES ('3d4e0001-5f60-4172-8394-a5b6c7d8e9f0', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'user', '[{"type":"text","data":{"text":"Add a --verbose flag to the CLI"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1753932000, 1753932000, NULL, NULL);
INSERT INTO messages VALUES ('3d4e0002-5f60-4172-8394-a5b6c7d8e9f0', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'assistant', '[{"type":"text","data":{"text":"I''ll add it to main.go."}},{"type":"tool_call","data":{"id":"toolu_01Edit","name":"edit","input":"{\"file_path\":\"/home/u/cli/main.go\",\"old_string\":\"flag.Parse()\",\"new_string\":\"verbose := flag.Bool(\\\"verbose\\\", false, \\\"say more\\\")\\nflag.Parse()\"}","type":"","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1753932006}}]', 'claude-sonnet-4-20250514', 1753932001, 1753932006, 1753932006, 'anthropic');
INSERT INTO messages VALUES ('3d4e0003-5f60-4172-8394-a5b6c7d8e9f0', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"toolu_01Edit","name":"edit","content":"<result>\nContent replaced in file: /home/u/cli/main.go\n</result>","metadata":"{\"additions\":1,\"removals\":0}","is_error":false}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1753932007, 1753932007, NULL, NULL);
INSERT INTO messages VALUES ('3d4e0004-5f60-4172-8394-a5b6c7d8e9f0', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'assistant', '[{"type":"text","data":{"text":"Added --verbose; it defaults to false."}},{"type":"finish","data":{"reason":"end_turn","time":1753932020}}]', 'claude-sonnet-4-20250514', 1753932008, 1753932020, 1753932020, 'anthropic');
INSERT INTO messages VALUES ('3d4e0005-5f60-4172-8394-a5b6c7d8e9f0', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'assistant', '[{"type":"text","data":{"text":"The user asked for a --verbose flag; main.go now defines it."}},{"type":"finish","data":{"reason":"end_turn","time":1753932600}}]', 'claude-3-5-haiku-20241022', 1753932590, 1753932600, 1753932600, 'anthropic');
INSERT INTO messages VALUES ('3d4e0006-5f60-4172-8394-a5b6c7d8e9f0', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', 'user', '[{"type":"text","data":{"text":"Now document it in the README"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1753932700, 1753932700, NULL, NULL);
INSERT INTO files VALUES ('0a1b2c3d-0000-4000-8000-00000000000a', 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9', '/home/u/cli/main.go', 'package main

func main() {
	flag.Parse()
}
', 0, 1753932005, 1753932005);
