-- An OpenCode 1.x database, written by hand in the shapes of OpenCode's
-- drizzle schema (session.sql.ts) and its MessageV2 parts: the source of
-- src/, which importer/opencode's TestMirrorGolden exports from it
-- (go test ./importer/opencode -run TestMirrorGolden -update).
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL, position integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);

INSERT INTO project VALUES ('prj_1f0a', '/home/u/app', 'git', 'app', 1764300000000, 1764300000000);

-- A session: a prompt in Chinese and English, a reply that thinks, reads a file and runs the tests (which fail), a second step that answers; a compaction; a subagent's task; a part of a type tape does not map.
INSERT INTO session VALUES ('ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 'prj_1f0a', NULL, 'brave-otter', '/home/u/app', '修复 parseConfig 的空配置错误', '1.14.3', NULL, 12, 3, 1764300000000, 1764300900000, NULL, NULL);
INSERT INTO message VALUES ('msg_5a1f3c300001aAbBcCdDeEfF01', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300001000, 1764300001000,
 '{"id":"msg_5a1f3c300001aAbBcCdDeEfF01","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","role":"user","time":{"created":1764300001000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_5a1f3c300002aAbBcCdDeEfF02', 'msg_5a1f3c300001aAbBcCdDeEfF01', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300001000, 1764300001000,
 '{"id":"prt_5a1f3c300002aAbBcCdDeEfF02","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c300001aAbBcCdDeEfF01","type":"text","text":"parseConfig 在空配置时报错，请修复。The empty config should give the defaults."}');
INSERT INTO message VALUES ('msg_5a1f3c400003aAbBcCdDeEfF03', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300002000, 1764300030000,
 '{"id":"msg_5a1f3c400003aAbBcCdDeEfF03","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","role":"assistant","time":{"created":1764300002000,"completed":1764300030000},"parentID":"msg_5a1f3c300001aAbBcCdDeEfF01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/u/app","root":"/home/u/app"},"cost":0.0213,"tokens":{"input":1200,"output":340,"reasoning":120,"cache":{"read":8000,"write":500}},"finish":"tool-calls"}');
INSERT INTO part VALUES ('prt_5a1f3c400004aAbBcCdDeEfF04', 'msg_5a1f3c400003aAbBcCdDeEfF03', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300002100, 1764300002100,
 '{"id":"prt_5a1f3c400004aAbBcCdDeEfF04","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c400003aAbBcCdDeEfF03","type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}');
INSERT INTO part VALUES ('prt_5a1f3c400005aAbBcCdDeEfF05', 'msg_5a1f3c400003aAbBcCdDeEfF03', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300002200, 1764300004000,
 '{"id":"prt_5a1f3c400005aAbBcCdDeEfF05","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c400003aAbBcCdDeEfF03","type":"reasoning","text":"先读 config.go，看空输入走哪条路径。","time":{"start":1764300002200,"end":1764300004000}}');
INSERT INTO part VALUES ('prt_5a1f3c400006aAbBcCdDeEfF06', 'msg_5a1f3c400003aAbBcCdDeEfF03', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300004100, 1764300005000,
 '{"id":"prt_5a1f3c400006aAbBcCdDeEfF06","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c400003aAbBcCdDeEfF03","type":"tool","callID":"toolu_01ReadCfg","tool":"read","state":{"status":"completed","input":{"filePath":"/home/u/app/config.go"},"output":"func parseConfig(b []byte) (*Config, error) {\n\tif len(b) == 0 {\n\t\treturn nil, errEmpty\n\t}\n}","title":"config.go","metadata":{"preview":"func parseConfig"},"time":{"start":1764300004100,"end":1764300005000}}}');
INSERT INTO part VALUES ('prt_5a1f3c400007aAbBcCdDeEfF07', 'msg_5a1f3c400003aAbBcCdDeEfF03', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300005100, 1764300029000,
 '{"id":"prt_5a1f3c400007aAbBcCdDeEfF07","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c400003aAbBcCdDeEfF03","type":"tool","callID":"toolu_02RunTests","tool":"bash","state":{"status":"error","input":{"command":"go test ./config","description":"Run the config tests"},"error":"--- FAIL: TestParseEmpty (0.00s)\n    config_test.go:12: 错误: errEmpty\nFAIL","metadata":{"exit":1},"time":{"start":1764300005100,"end":1764300029000}}}');
INSERT INTO part VALUES ('prt_5a1f3c400008aAbBcCdDeEfF08', 'msg_5a1f3c400003aAbBcCdDeEfF03', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300029500, 1764300029500,
 '{"id":"prt_5a1f3c400008aAbBcCdDeEfF08","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c400003aAbBcCdDeEfF03","type":"step-finish","reason":"tool-calls","snapshot":"8d2f1e0","cost":0.0213,"tokens":{"input":1200,"output":340,"reasoning":120,"cache":{"read":8000,"write":500}}}');
INSERT INTO message VALUES ('msg_5a1f3c500009aAbBcCdDeEfF09', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300031000, 1764300060000,
 '{"id":"msg_5a1f3c500009aAbBcCdDeEfF09","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","role":"assistant","time":{"created":1764300031000,"completed":1764300060000},"parentID":"msg_5a1f3c300001aAbBcCdDeEfF01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/u/app","root":"/home/u/app"},"cost":0.0087,"tokens":{"input":300,"output":210,"reasoning":0,"cache":{"read":9700,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_5a1f3c50000aaAbBcCdDeEfF0a', 'msg_5a1f3c500009aAbBcCdDeEfF09', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300031100, 1764300040000,
 '{"id":"prt_5a1f3c50000aaAbBcCdDeEfF0a","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c500009aAbBcCdDeEfF09","type":"tool","callID":"toolu_03Task","tool":"task","state":{"status":"completed","input":{"description":"Explore the parser","prompt":"Find every caller of parseConfig","subagent_type":"explore"},"output":"Three callers: main.go, server.go, cli.go","title":"Explore the parser","metadata":{"sessionId":"ses_5a1f3c6f0ffeH8i9J0k1L2m3N4"},"time":{"start":1764300031100,"end":1764300040000}}}');
INSERT INTO part VALUES ('prt_5a1f3c50000baAbBcCdDeEfF0b', 'msg_5a1f3c500009aAbBcCdDeEfF09', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300041000, 1764300041000,
 '{"id":"prt_5a1f3c50000baAbBcCdDeEfF0b","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c500009aAbBcCdDeEfF09","type":"patch","hash":"8d2f1e0","files":["/home/u/app/config.go"]}');
INSERT INTO part VALUES ('prt_5a1f3c50000caAbBcCdDeEfF0c', 'msg_5a1f3c500009aAbBcCdDeEfF09', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300059000, 1764300059000,
 '{"id":"prt_5a1f3c50000caAbBcCdDeEfF0c","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c500009aAbBcCdDeEfF09","type":"text","text":"空配置现在返回默认值；parseConfig returns the defaults for empty input, and TestParseEmpty passes."}');
INSERT INTO message VALUES ('msg_5a1f3c60000daAbBcCdDeEfF0d', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300800000, 1764300800000,
 '{"id":"msg_5a1f3c60000daAbBcCdDeEfF0d","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","role":"user","time":{"created":1764300800000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_5a1f3c60000eaAbBcCdDeEfF0e', 'msg_5a1f3c60000daAbBcCdDeEfF0d', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300800000, 1764300800000,
 '{"id":"prt_5a1f3c60000eaAbBcCdDeEfF0e","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c60000daAbBcCdDeEfF0d","type":"compaction","auto":true}');
INSERT INTO message VALUES ('msg_5a1f3c70000faAbBcCdDeEfF0f', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300801000, 1764300900000,
 '{"id":"msg_5a1f3c70000faAbBcCdDeEfF0f","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","role":"assistant","time":{"created":1764300801000,"completed":1764300900000},"parentID":"msg_5a1f3c60000daAbBcCdDeEfF0d","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"compaction","agent":"compaction","summary":true,"path":{"cwd":"/home/u/app","root":"/home/u/app"},"cost":0.002,"tokens":{"input":9000,"output":400,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_5a1f3c700010aAbBcCdDeEfF10', 'msg_5a1f3c70000faAbBcCdDeEfF0f', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300850000, 1764300850000,
 '{"id":"prt_5a1f3c700010aAbBcCdDeEfF10","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c70000faAbBcCdDeEfF0f","type":"text","text":"Summary: parseConfig now returns the defaults for an empty config; TestParseEmpty passes. 摘要：已修复。"}');
INSERT INTO part VALUES ('prt_5a1f3c700011aAbBcCdDeEfF11', 'msg_5a1f3c70000faAbBcCdDeEfF0f', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 1764300860000, 1764300860000,
 '{"id":"prt_5a1f3c700011aAbBcCdDeEfF11","sessionID":"ses_5a1f3c2e9ffeA1b2C3d4E5f6G7","messageID":"msg_5a1f3c70000faAbBcCdDeEfF0f","type":"hologram","beam":"a part of a type tape does not map"}');

-- The subagent's session the task started: its parent is the session above.
INSERT INTO session VALUES ('ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 'prj_1f0a', 'ses_5a1f3c2e9ffeA1b2C3d4E5f6G7', 'calm-heron', '/home/u/app', 'Explore the parser (@explore subagent)', '1.14.3', NULL, NULL, NULL, 1764300031200, 1764300039000, NULL, NULL);
INSERT INTO message VALUES ('msg_5a1f3c6f1001aAbBcCdDeEfF21', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300031300, 1764300031300,
 '{"id":"msg_5a1f3c6f1001aAbBcCdDeEfF21","sessionID":"ses_5a1f3c6f0ffeH8i9J0k1L2m3N4","role":"user","time":{"created":1764300031300},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO part VALUES ('prt_5a1f3c6f1002aAbBcCdDeEfF22', 'msg_5a1f3c6f1001aAbBcCdDeEfF21', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300031300, 1764300031300,
 '{"id":"prt_5a1f3c6f1002aAbBcCdDeEfF22","sessionID":"ses_5a1f3c6f0ffeH8i9J0k1L2m3N4","messageID":"msg_5a1f3c6f1001aAbBcCdDeEfF21","type":"text","text":"Find every caller of parseConfig"}');
INSERT INTO message VALUES ('msg_5a1f3c6f1003aAbBcCdDeEfF23', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300031400, 1764300039000,
 '{"id":"msg_5a1f3c6f1003aAbBcCdDeEfF23","sessionID":"ses_5a1f3c6f0ffeH8i9J0k1L2m3N4","role":"assistant","time":{"created":1764300031400,"completed":1764300039000},"parentID":"msg_5a1f3c6f1001aAbBcCdDeEfF21","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/home/u/app","root":"/home/u/app"},"cost":0.0011,"tokens":{"input":2100,"output":90,"reasoning":0,"cache":{"read":0,"write":1800}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_5a1f3c6f1004aAbBcCdDeEfF24', 'msg_5a1f3c6f1003aAbBcCdDeEfF23', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300038000, 1764300038000,
 '{"id":"prt_5a1f3c6f1004aAbBcCdDeEfF24","sessionID":"ses_5a1f3c6f0ffeH8i9J0k1L2m3N4","messageID":"msg_5a1f3c6f1003aAbBcCdDeEfF23","type":"text","text":"Three callers: main.go, server.go, cli.go"}');

-- A session its agent left mid-reply (killed): the reply never completed, its tool still running; exported as it was left once the session is quiet.
INSERT INTO session VALUES ('ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1', 'prj_1f0a', NULL, 'quiet-lynx', '/home/u/app/web', 'New session - 2025-11-28T04:00:00.000Z', '1.14.3', NULL, NULL, NULL, 1764302400000, 1764302460000, NULL, NULL);
INSERT INTO message VALUES ('msg_5a1f3d0a2001aAbBcCdDeEfF31', 'ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1', 1764302401000, 1764302401000,
 '{"id":"msg_5a1f3d0a2001aAbBcCdDeEfF31","sessionID":"ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1","role":"user","time":{"created":1764302401000},"agent":"build","model":{"providerID":"openai","modelID":"gpt-5.1-codex"}}');
INSERT INTO part VALUES ('prt_5a1f3d0a2002aAbBcCdDeEfF32', 'msg_5a1f3d0a2001aAbBcCdDeEfF31', 'ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1', 1764302401000, 1764302401000,
 '{"id":"prt_5a1f3d0a2002aAbBcCdDeEfF32","sessionID":"ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1","messageID":"msg_5a1f3d0a2001aAbBcCdDeEfF31","type":"text","text":"重新构建前端 bundle"}');
INSERT INTO message VALUES ('msg_5a1f3d0a2003aAbBcCdDeEfF33', 'ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1', 1764302402000, 1764302460000,
 '{"id":"msg_5a1f3d0a2003aAbBcCdDeEfF33","sessionID":"ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1","role":"assistant","time":{"created":1764302402000},"parentID":"msg_5a1f3d0a2001aAbBcCdDeEfF31","modelID":"gpt-5.1-codex","providerID":"openai","mode":"build","agent":"build","path":{"cwd":"/home/u/app/web","root":"/home/u/app"},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_5a1f3d0a2004aAbBcCdDeEfF34', 'msg_5a1f3d0a2003aAbBcCdDeEfF33', 'ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1', 1764302403000, 1764302460000,
 '{"id":"prt_5a1f3d0a2004aAbBcCdDeEfF34","sessionID":"ses_5a1f3d0a1ffeO5p6Q7r8S9t0U1","messageID":"msg_5a1f3d0a2003aAbBcCdDeEfF33","type":"tool","callID":"call_9bundle","tool":"bash","state":{"status":"running","input":{"command":"npm run build"},"title":"npm run build","time":{"start":1764302403000}}}');
