-- The golden Goose database: the tables as Goose 1.x writes them at schema 16
-- (crates/goose/src/session/session_manager.rs, create_schema), and rows
-- written by hand. importer/goose's TestMirrorGolden exports it to src/;
-- testkit/agenthome writes it as ~/.local/share/goose/sessions/sessions.db for
-- the ccusage test. One statement a line for the CREATEs (the tests read them).
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER, accumulated_cache_write_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id);
INSERT INTO schema_version (version, applied_at) VALUES (16, '2025-11-20 08:00:00');

-- A session: a prompt in Chinese and English, a reply that thinks, reads a file and runs the tests (which fail), an answer;
-- a compaction (its summary, then the text Goose adds after it), a prompt after it; blocks tape keeps as events.
INSERT INTO sessions VALUES ('20251128_1', '修复 parseConfig 空配置', '', 0, 'user', '/home/u/app', '2025-11-28 23:50:00', '2025-11-29 00:20:00',
  '{"enabled_extensions.v0":{"extensions":[{"type":"builtin","name":"developer"}]},"todo.v0":{"content":"- [x] read config.go\n- [ ] 写测试"}}',
  9200, 9000, 200, 8000, 1000, 41000, 40000, 1000, 30000, 2000, 0.0185, NULL, NULL, NULL, 'anthropic',
  '{"model_name":"claude-sonnet-4-5","context_limit":200000,"temperature":null,"max_tokens":null,"toolshim":false}', 'auto', NULL, 'prj_app', NULL);
INSERT INTO messages VALUES (1, 'msg_0a1b2c3d-1111-4000-8000-000000000001', '20251128_1', 'user',
  '[{"type":"text","text":"parseConfig panics on an empty config; 修复它，空配置应当返回默认值。"}]', 1764373800, '2025-11-28 23:50:00', NULL,
  '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (2, 'msg_0a1b2c3d-1111-4000-8000-000000000002', '20251128_1', 'assistant',
  '[{"type":"thinking","thinking":"The panic is a nil map; read config.go first.","signature":"EqQBCkYIBxgCKkD"},{"type":"text","text":"Let me read the parser first."},{"type":"toolRequest","id":"toolu_01ReadConfig","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"view","path":"/home/u/app/config/config.go"}}}}]',
  1764373805, '2025-11-28 23:50:05', NULL, '{"userVisible":true,"agentVisible":true,"inference":{"provider":"anthropic","requestedModel":"claude-sonnet-4-5"}}');
INSERT INTO messages VALUES (3, 'msg_0a1b2c3d-1111-4000-8000-000000000003', '20251128_1', 'user',
  '[{"type":"toolResponse","id":"toolu_01ReadConfig","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"func parseConfig(b []byte) (*Config, error) {\n\tvar c Config\n\tc.Values[\"mode\"] = \"strict\" // 空配置时 Values 为 nil\n}"}],"isError":false}}}]',
  1764373806, '2025-11-28 23:50:06', NULL, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (4, 'msg_0a1b2c3d-1111-4000-8000-000000000004', '20251128_1', 'assistant',
  '[{"type":"text","text":"Values is nil for an empty config. Running the tests."},{"type":"toolRequest","id":"toolu_02RunTests","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"go test ./config -run TestParseEmpty"}}},"toolMeta":{"title":"Run the config tests"}}]',
  1764373810, '2025-11-28 23:50:10', NULL, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (5, 'msg_0a1b2c3d-1111-4000-8000-000000000005', '20251128_1', 'user',
  '[{"type":"toolResponse","id":"toolu_02RunTests","toolResult":{"status":"error","error":"Execution failed: --- FAIL: TestParseEmpty: panic: assignment to entry in nil map"}}]',
  1764373812, '2025-11-28 23:50:12', NULL, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (6, 'msg_0a1b2c3d-1111-4000-8000-000000000006', '20251128_1', 'assistant',
  '[{"type":"redactedThinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"},{"type":"text","text":"parseConfig now makes Values before it reads the file: 空配置返回默认值，测试通过。"}]',
  1764373830, '2025-11-28 23:50:30', NULL, '{"userVisible":true,"agentVisible":true}');
-- Written again by a compaction (the same message_id in the same second): not exported twice.
INSERT INTO messages VALUES (7, 'msg_0a1b2c3d-1111-4000-8000-000000000006', '20251128_1', 'assistant',
  '[{"type":"redactedThinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"},{"type":"text","text":"parseConfig now makes Values before it reads the file: 空配置返回默认值，测试通过。"}]',
  1764373830, '2025-11-29 00:00:00', NULL, '{"userVisible":true,"agentVisible":false}');
INSERT INTO messages VALUES (8, 'msg_0a1b2c3d-1111-4000-8000-000000000008', '20251128_1', 'user',
  '[{"type":"text","text":"Summary: parseConfig panicked on an empty config (nil Values map); it now makes the map first and TestParseEmpty passes. 摘要：已修复。"}]',
  1764374400, '2025-11-29 00:00:00', NULL, '{"userVisible":false,"agentVisible":true}');
INSERT INTO messages VALUES (9, 'msg_0a1b2c3d-1111-4000-8000-000000000009', '20251128_1', 'assistant',
  '[{"type":"text","text":"Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context."}]',
  1764374400, '2025-11-29 00:00:00', NULL, '{"userVisible":false,"agentVisible":true}');
INSERT INTO messages VALUES (10, 'msg_0a1b2c3d-1111-4000-8000-000000000010', '20251128_1', 'user',
  '[{"type":"text","text":"Now add a table test for TestParseEmpty, 再加一个表驱动测试。"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]',
  1764374410, '2025-11-29 00:00:10', NULL, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (11, 'msg_0a1b2c3d-1111-4000-8000-000000000011', '20251128_1', 'assistant',
  '[{"type":"systemNotification","notificationType":"thinkingMessage","msg":"Delegating to a subagent"},{"type":"actionRequired","data":{"actionType":"toolConfirmation","id":"toolu_03Write","toolName":"developer__text_editor","arguments":{"command":"write","path":"config/config_test.go"},"prompt":"Allow writing config_test.go?"}},{"type":"futureContent","note":"a block of a type tape does not map"}]',
  1764374420, '2025-11-29 00:00:20', 812, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (12, 'msg_0a1b2c3d-1111-4000-8000-000000000012', '20251128_1', 'assistant', '{not json', 1764374430, '2025-11-29 00:00:30', NULL, NULL);
INSERT INTO usage_ledger VALUES (1, '20251128_1', 1764373830, 'claude-sonnet-4-5', 30000, 700, 30700, 20000, 1500, 0.0121, 'provider_reported', 0);
INSERT INTO usage_ledger VALUES (2, '20251128_1', 1764374400, 'claude-sonnet-4-5', 10000, 300, 10300, 10000, 500, 0.0064, 'estimated', 1);

-- The subagent's session: its own tape, whose parent is the session; counted on the next day.
INSERT INTO sessions VALUES ('20251129_1', 'Write the table test', '', 0, 'sub_agent', '/home/u/app', '2025-11-29 00:05:00', '2025-11-29 00:06:00',
  '{}', 1300, 1200, 100, 0, 0, 1300, 1200, 100, 0, 0, NULL, NULL, NULL, NULL, 'anthropic',
  '{"model_name":"claude-haiku-4-5","context_limit":200000}', 'auto', NULL, 'prj_app', '20251128_1');
INSERT INTO messages VALUES (13, 'msg_0a1b2c3d-2222-4000-8000-000000000001', '20251129_1', 'user',
  '[{"type":"text","text":"Write a table-driven TestParseEmpty in config/config_test.go."}]', 1764374700, '2025-11-29 00:05:00', NULL,
  '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages VALUES (14, 'msg_0a1b2c3d-2222-4000-8000-000000000002', '20251129_1', 'assistant',
  '[{"type":"text","text":"Added three cases: empty, whitespace, 仅注释。"}]', 1764374760, '2025-11-29 00:06:00', NULL,
  '{"userVisible":true,"agentVisible":true,"inference":{"provider":"anthropic","requestedModel":"claude-haiku-4-5","resolvedModel":"claude-haiku-4-5-20251001"}}');

-- A session Goose copied from a file of its own before the database (created_at as sqlx binds a time, a
-- fraction of a second: ccusage does not count it, nor does tape), of no model_config_json, named by its description.
INSERT INTO sessions (id, name, description, working_dir, created_at, updated_at, total_tokens, input_tokens, output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens)
  VALUES ('20251127_090000', '', 'old style session', '/home/u/old', '2025-11-27T09:00:00.123456+00:00', '2025-11-27T09:30:00.5+00:00', 500, 450, 50, 700, 600, 100);
INSERT INTO messages VALUES (15, 'msg_20251127_090000_1', '20251127_090000', 'user',
  '[{"type":"text","text":"list the files"}]', 1764234000, '2025-11-27 09:00:00', NULL, NULL);
INSERT INTO messages VALUES (16, 'msg_20251127_090000_2', '20251127_090000', 'assistant',
  '[{"type":"toolRequest","id":"call_1","toolCall":{"status":"error","error":"Could not interpret tool use parameters"}},{"type":"reasoning","text":"an old reasoning block"},{"type":"conversationCompacted","msg":"Conversation compacted and summarized"}]',
  1764234010, '2025-11-27 09:00:10', NULL, NULL);
