-- A Crush database of the current layout (its goose migrations up to
-- 20260127000000_add_read_files_table, Crush 0.37 and later), written by
-- hand in the shapes of Crush's internal/db and internal/message: the
-- source of src/, which importer/crush's TestMirrorGolden exports from it
-- (go test ./importer/crush -run TestMirrorGolden -update). Times are in
-- seconds, as Crush's strftime('%s', 'now') writes them. Crush's triggers
-- are left out, so that the rows keep the times written here.
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0), prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0), completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0), cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0), updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE, UNIQUE(path, session_id, version));
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL, FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE);
CREATE TABLE read_files (session_id TEXT NOT NULL CHECK (session_id != ''), path TEXT NOT NULL CHECK (path != ''), read_at INTEGER NOT NULL, FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE, PRIMARY KEY (path, session_id));
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE INDEX idx_messages_created_at ON messages (created_at);
CREATE INDEX idx_files_session_id ON files (session_id);

INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (0, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250424200609, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250515105448, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250624000000, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250627000000, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250810000000, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20250812000000, 1, '2025-11-28 03:00:00');
INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (20260127000000, 1, '2025-11-28 03:00:00');

-- A session: a prompt in Chinese and English with a screenshot, a reply
-- that thinks, reads a file and runs the tests (which fail), a subagent's
-- task, an answer, a summary, two shell commands (one failed), a part of
-- a type tape does not map, a reply that failed; its file history.
INSERT INTO sessions VALUES ('4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', NULL, '修复 parseConfig 的空配置错误', 12, 14200, 620, 0.0843, 1764300900, 1764300000, '7c2e0007-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '[{"content":"读 config.go","status":"completed","active_form":"Reading config.go"},{"content":"Fix parseConfig for an empty config","status":"completed","active_form":"Fixing parseConfig"}]');
INSERT INTO messages VALUES ('7c2e0001-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'user', '[{"type":"text","data":{"text":"parseConfig 在空配置时报错，请修复。The empty config should give the defaults."}},{"type":"binary","data":{"Path":"/home/u/app/screenshot.png","MIMEType":"image/png","Data":"iVBORw0KGgo="}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300001, 1764300001, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e0002-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'assistant', '[{"type":"reasoning","data":{"thinking":"先读 config.go，看空输入走哪条路径。","signature":"EqQBCkYIBxgCKkA","thought_signature":"","tool_id":"","responses_data":null,"started_at":1764300002,"finished_at":1764300004}},{"type":"text","data":{"text":"I''ll read config.go first, then run the tests."}},{"type":"tool_call","data":{"id":"toolu_01ReadCfg","name":"view","input":"{\"file_path\":\"/home/u/app/config.go\"}","provider_executed":false,"finished":true}},{"type":"tool_call","data":{"id":"toolu_02RunTests","name":"bash","input":"{\"command\":\"go test ./...\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1764300008}}]', 'claude-sonnet-4-5', 1764300002, 1764300008, 1764300008, 'anthropic', 0);
INSERT INTO messages VALUES ('7c2e0003-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"toolu_01ReadCfg","name":"view","content":"func parseConfig(b []byte) (*Config, error) {\n\tif len(b) == 0 {\n\t\treturn nil, errEmpty\n\t}\n}","data":"","mime_type":"","metadata":"{\"file_path\":\"/home/u/app/config.go\",\"content\":\"func parseConfig\"}","is_error":false}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300005, 1764300005, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e000c-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"toolu_02RunTests","name":"bash","content":"--- FAIL: TestParseEmpty (0.00s)\n    config_test.go:9: parseConfig(nil): errEmpty","data":"","mime_type":"","metadata":"{\"exit_code\":1}","is_error":true}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300009, 1764300009, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'assistant', '[{"type":"tool_call","data":{"id":"toolu_03Agent","name":"agent","input":"{\"prompt\":\"Find every caller of parseConfig\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1764300012}}]', 'claude-sonnet-4-5', 1764300010, 1764300012, 1764300012, 'anthropic', 0);
INSERT INTO messages VALUES ('7c2e0005-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"toolu_03Agent","name":"agent","content":"parseConfig is called from main.go and server.go.","data":"","mime_type":"","metadata":"","is_error":false}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300040, 1764300040, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e0006-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'assistant', '[{"type":"text","data":{"text":"Fixed: an empty config now returns the defaults, and TestParseEmpty passes. 空配置现在返回默认值。"}},{"type":"finish","data":{"reason":"end_turn","time":1764300060}}]', 'claude-sonnet-4-5', 1764300041, 1764300060, 1764300060, 'anthropic', 0);
INSERT INTO messages VALUES ('7c2e0007-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'assistant', '[{"type":"text","data":{"text":"Summary: parseConfig returned errEmpty for an empty config; it now returns the defaults. 摘要：已修复。"}},{"type":"finish","data":{"reason":"end_turn","time":1764300300}}]', 'claude-haiku-4-5', 1764300290, 1764300300, 1764300300, 'anthropic', 1);
INSERT INTO messages VALUES ('7c2e0008-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'user', '[{"type":"shell_command","data":{"command":"git status --short","output":" M config.go\n","exit_code":0}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300400, 1764300400, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e0009-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'user', '[{"type":"shell_command","data":{"command":"make lint","output":"config.go:12: line is 130 characters (lll)","exit_code":2}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300410, 1764300410, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e000a-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'user', '[{"type":"text","data":{"text":"谢谢！Could you also add a test for a config of spaces?"}},{"type":"video_url","data":{"url":"https://example.com/demo.mp4"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300500, 1764300500, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e000b-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'assistant', '[{"type":"text","data":{"text":"Adding the te"}},{"type":"finish","data":{"reason":"error","time":1764300505,"message":"Overloaded","details":"the provider returned 529: overloaded_error"}}]', 'claude-sonnet-4-5', 1764300501, 1764300505, 1764300505, 'anthropic', 0);
INSERT INTO files VALUES ('f1a2b3c4-0000-4000-8000-000000000001', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', '/home/u/app/config.go', 'func parseConfig(b []byte) (*Config, error) {
	if len(b) == 0 {
		return nil, errEmpty
	}
}
', 0, 1764300045, 1764300045);
INSERT INTO files VALUES ('f1a2b3c4-0000-4000-8000-000000000002', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', '/home/u/app/config.go', 'func parseConfig(b []byte) (*Config, error) {
	if len(b) == 0 {
		return defaults(), nil
	}
}
', 1, 1764300045, 1764300045);
INSERT INTO read_files VALUES ('4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', '/home/u/app/config.go', 1764300003);

-- The subagent's task, a session of its own: its id is its parent's
-- message's and the agent call's, its parent the session.
INSERT INTO sessions VALUES ('7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent', '4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'Find every caller of parseConfig', 4, 3100, 210, 0.0042, 1764300039, 1764300012, NULL, NULL);
INSERT INTO messages VALUES ('7c2e0014-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent', 'user', '[{"type":"text","data":{"text":"Find every caller of parseConfig"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300012, 1764300012, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e0015-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent', 'assistant', '[{"type":"tool_call","data":{"id":"toolu_04Grep","name":"grep","input":"{\"pattern\":\"parseConfig\\\\(\",\"path\":\"/home/u/app\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1764300015}}]', 'claude-haiku-4-5', 1764300013, 1764300015, 1764300015, 'anthropic', 0);
INSERT INTO messages VALUES ('7c2e0016-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"toolu_04Grep","name":"grep","content":"main.go:14: cfg, err := parseConfig(b)\nserver.go:88: c, err := parseConfig(body)","data":"","mime_type":"","metadata":"","is_error":false}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300016, 1764300016, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e0017-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent', 'assistant', '[{"type":"text","data":{"text":"parseConfig is called from main.go and server.go."}},{"type":"finish","data":{"reason":"end_turn","time":1764300039}}]', 'claude-haiku-4-5', 1764300017, 1764300039, 1764300039, 'anthropic', 0);

-- A session Crush left mid-reply (it was killed): the reply has no
-- finish, and its last call never finished; quiet long since, it is
-- exported as it was left. No tokens were counted.
INSERT INTO sessions VALUES ('d0a1b2c3-4d5e-4f60-8172-93a4b5c6d7e8', NULL, 'New Session', 2, 0, 0, 0.0, 1764303603, 1764303600, NULL, NULL);
INSERT INTO messages VALUES ('7c2e001e-1a2b-4c3d-8e9f-a0b1c2d3e4f5', 'd0a1b2c3-4d5e-4f60-8172-93a4b5c6d7e8', 'user', '[{"type":"text","data":{"text":"Run the web tests"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764303600, 1764303600, NULL, NULL, 0);
INSERT INTO messages VALUES ('7c2e001f-1a2b-4c3d-8e9f-a0b1c2d3e4f5', 'd0a1b2c3-4d5e-4f60-8172-93a4b5c6d7e8', 'assistant', '[{"type":"reasoning","data":{"thinking":"The web tests live in web/.","signature":"","thought_signature":"","tool_id":"","responses_data":null,"started_at":1764303601}},{"type":"tool_call","data":{"id":"call_9Web","name":"bash","input":"{\"command\":\"npm test --prefix web\"}","provider_executed":false,"finished":false}}]', 'gpt-5', 1764303601, 1764303603, NULL, 'openai', 0);
