-- A Kilo CLI database (kilo.db, @kilocode/cli 7.x), written by hand in the
-- shapes of Kilo's drizzle schema (packages/opencode/src/session/session.sql.ts
-- in Kilo-Org/kilocode, OpenCode's with Kilo's changes) and its MessageV2
-- parts: the source of src/, which importer/opencode's TestKiloMirrorGolden
-- exports from it (go test ./importer/opencode -run TestKiloMirrorGolden -update).
-- Kilo's session table has the columns its migrations added after the table was
-- made, last: workspace_id, and current_state and recent_progress (Kilo's
-- migration 20260423164316_add_session_metadata_fields); Kilo adds a task table.
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL, commands text);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text, revert text, permission text, time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer, workspace_id text, current_state text, recent_progress text);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL, priority text NOT NULL, position integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, PRIMARY KEY (session_id, position));
CREATE TABLE task (id text PRIMARY KEY, session_id text NOT NULL, title text NOT NULL, description text DEFAULT '' NOT NULL, status text DEFAULT 'open' NOT NULL, priority text DEFAULT 'medium' NOT NULL, assignee text, depends_on text, worktree text, pr text, summary text, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session_entry (id text PRIMARY KEY, session_id text NOT NULL, type text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);

INSERT INTO project VALUES ('prj_7c41e2', '/home/u/shop', 'git', 'shop', NULL, NULL, 1777712400000, 1777712400000, 1777712400000, '[]', NULL);

-- A session: a prompt in Chinese and English with Kilo's editor context, a reply through the Kilo gateway that thinks, reads a file and runs the tests (which fail), then a step that sends a subagent, writes a local warning (an ignored text), and answers; a compaction and its summary; a part of a type tape does not map. Kilo's current_state and recent_progress on the session's row.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, summary_additions, summary_deletions, summary_files, time_created, time_updated, current_state, recent_progress)
 VALUES ('ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 'prj_7c41e2', NULL, 'swift-falcon', '/home/u/shop', '修复购物车 the cart total rounding', '7.2.14', 8, 2, 1, 1777712400000, 1777713400000,
 'The cart total now rounds half-even; 购物车测试通过。', 'Read cart.go, ran go test ./cart (failed on TestTotalRounding), fixed roundCents, explored its callers.');
INSERT INTO message VALUES ('msg_6b2e41a10001kKlLmMnNoOpP01', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712401000, 1777712401000,
 '{"role":"user","time":{"created":1777712401000},"agent":"code","model":{"providerID":"kilo","modelID":"anthropic/claude-sonnet-4.5"},"editorContext":{"visibleFiles":["cart/cart.go"],"openTabs":["cart/cart.go","cart/cart_test.go"],"activeFile":"cart/cart.go","shell":"/bin/zsh"}}');
INSERT INTO part VALUES ('prt_6b2e41a10002kKlLmMnNoOpP02', 'msg_6b2e41a10001kKlLmMnNoOpP01', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712401000, 1777712401000,
 '{"type":"text","text":"购物车总价四舍五入错了，请修复。The cart total is off by a cent for 0.125."}');
INSERT INTO message VALUES ('msg_6b2e41a20003kKlLmMnNoOpP03', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712402000, 1777712440000,
 '{"role":"assistant","time":{"created":1777712402000,"completed":1777712440000},"parentID":"msg_6b2e41a10001kKlLmMnNoOpP01","modelID":"anthropic/claude-sonnet-4.5","providerID":"kilo","mode":"code","agent":"code","path":{"cwd":"/home/u/shop","root":"/home/u/shop"},"cost":0.0342,"tokens":{"total":13720,"input":2400,"output":520,"reasoning":200,"cache":{"read":9800,"write":800}},"finish":"tool-calls"}');
INSERT INTO part VALUES ('prt_6b2e41a20004kKlLmMnNoOpP04', 'msg_6b2e41a20003kKlLmMnNoOpP03', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712402100, 1777712402100,
 '{"type":"step-start","snapshot":"9f1c0de"}');
INSERT INTO part VALUES ('prt_6b2e41a20005kKlLmMnNoOpP05', 'msg_6b2e41a20003kKlLmMnNoOpP03', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712402200, 1777712404000,
 '{"type":"reasoning","text":"先看 roundCents：0.125 应该舍入到 0.12 (half-even).","metadata":{"anthropic":{"signature":"sig-kilo-01"}},"time":{"start":1777712402200,"end":1777712404000}}');
INSERT INTO part VALUES ('prt_6b2e41a20006kKlLmMnNoOpP06', 'msg_6b2e41a20003kKlLmMnNoOpP03', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712404100, 1777712405000,
 '{"type":"tool","callID":"toolu_01ReadCart","tool":"read","state":{"status":"completed","input":{"filePath":"/home/u/shop/cart/cart.go"},"output":"func roundCents(x float64) float64 {\n\treturn math.Round(x*100) / 100\n}","title":"cart/cart.go","metadata":{"preview":"func roundCents"},"time":{"start":1777712404100,"end":1777712405000}}}');
INSERT INTO part VALUES ('prt_6b2e41a20007kKlLmMnNoOpP07', 'msg_6b2e41a20003kKlLmMnNoOpP03', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712405100, 1777712439000,
 '{"type":"tool","callID":"toolu_02TestCart","tool":"bash","state":{"status":"error","input":{"command":"go test ./cart","description":"Run the cart tests"},"error":"--- FAIL: TestTotalRounding (0.00s)\n    cart_test.go:18: 总价 got 0.13, want 0.12\nFAIL","metadata":{"exit":1},"time":{"start":1777712405100,"end":1777712439000}}}');
INSERT INTO part VALUES ('prt_6b2e41a20008kKlLmMnNoOpP08', 'msg_6b2e41a20003kKlLmMnNoOpP03', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712439500, 1777712439500,
 '{"type":"step-finish","reason":"tool-calls","snapshot":"a7e3b21","cost":0.0342,"tokens":{"total":13720,"input":2400,"output":520,"reasoning":200,"cache":{"read":9800,"write":800}}}');
INSERT INTO message VALUES ('msg_6b2e41a30009kKlLmMnNoOpP09', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712441000, 1777712500000,
 '{"role":"assistant","time":{"created":1777712441000,"completed":1777712500000},"parentID":"msg_6b2e41a10001kKlLmMnNoOpP01","modelID":"anthropic/claude-sonnet-4.5","providerID":"kilo","mode":"code","agent":"code","path":{"cwd":"/home/u/shop","root":"/home/u/shop"},"cost":0.0121,"tokens":{"input":600,"output":310,"reasoning":0,"cache":{"read":12100,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_6b2e41a3000akKlLmMnNoOpP0a', 'msg_6b2e41a30009kKlLmMnNoOpP09', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712441100, 1777712460000,
 '{"type":"tool","callID":"toolu_03Task","tool":"task","state":{"status":"completed","input":{"description":"Find roundCents callers","prompt":"List every caller of roundCents","subagent_type":"explore"},"output":"Two callers: cart.Total and invoice.Render","title":"Find roundCents callers","metadata":{"sessionId":"ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef"},"time":{"start":1777712441100,"end":1777712460000}}}');
INSERT INTO part VALUES ('prt_6b2e41a3000bkKlLmMnNoOpP0b', 'msg_6b2e41a30009kKlLmMnNoOpP09', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712461000, 1777712461000,
 '{"type":"text","text":"Checkpoint saved before editing cart.go (本地提示)","ignored":true}');
INSERT INTO part VALUES ('prt_6b2e41a3000ckKlLmMnNoOpP0c', 'msg_6b2e41a30009kKlLmMnNoOpP09', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777712499000, 1777712499000,
 '{"type":"text","text":"roundCents 现在按 half-even 舍入；TestTotalRounding passes and invoice.Render agrees.","time":{"start":1777712490000,"end":1777712499000}}');
INSERT INTO message VALUES ('msg_6b2e41a4000dkKlLmMnNoOpP0d', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777713300000, 1777713300000,
 '{"role":"user","time":{"created":1777713300000},"agent":"code","model":{"providerID":"kilo","modelID":"anthropic/claude-sonnet-4.5"}}');
INSERT INTO part VALUES ('prt_6b2e41a4000ekKlLmMnNoOpP0e', 'msg_6b2e41a4000dkKlLmMnNoOpP0d', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777713300000, 1777713300000,
 '{"type":"compaction","auto":true,"overflow":false}');
INSERT INTO message VALUES ('msg_6b2e41a5000fkKlLmMnNoOpP0f', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777713301000, 1777713400000,
 '{"role":"assistant","time":{"created":1777713301000,"completed":1777713400000},"parentID":"msg_6b2e41a4000dkKlLmMnNoOpP0d","modelID":"anthropic/claude-haiku-4.5","providerID":"kilo","mode":"compaction","agent":"compaction","summary":true,"path":{"cwd":"/home/u/shop","root":"/home/u/shop"},"cost":0.0024,"tokens":{"input":11000,"output":450,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_6b2e41a50010kKlLmMnNoOpP10', 'msg_6b2e41a5000fkKlLmMnNoOpP0f', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777713350000, 1777713350000,
 '{"type":"text","text":"Summary: roundCents rounds half-even; TestTotalRounding passes. 摘要：购物车已修复。"}');
INSERT INTO part VALUES ('prt_6b2e41a50011kKlLmMnNoOpP11', 'msg_6b2e41a5000fkKlLmMnNoOpP0f', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 1777713360000, 1777713360000,
 '{"type":"kilo-memory","note":"a part of a type tape does not map"}');
INSERT INTO todo VALUES ('ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 'Fix roundCents', 'completed', 'high', 0, 1777712402000, 1777712500000);
INSERT INTO task (id, session_id, title, description, status, time_created, time_updated) VALUES ('tsk_01', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 'Round the invoice too', 'invoice.Render uses roundCents', 'open', 1777712500000, 1777712500000);

-- The subagent's session the task started: its parent is the session above; Kilo wrote no current_state for it.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
 VALUES ('ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 'prj_7c41e2', 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv', 'keen-otter', '/home/u/shop', 'Find roundCents callers (@explore subagent)', '7.2.14', 1777712441200, 1777712459000);
INSERT INTO message VALUES ('msg_6b2e41c40001kKlLmMnNoOpP21', 'ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 1777712441300, 1777712441300,
 '{"role":"user","time":{"created":1777712441300},"agent":"explore","model":{"providerID":"kilo","modelID":"anthropic/claude-haiku-4.5"}}');
INSERT INTO part VALUES ('prt_6b2e41c40002kKlLmMnNoOpP22', 'msg_6b2e41c40001kKlLmMnNoOpP21', 'ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 1777712441300, 1777712441300,
 '{"type":"text","text":"List every caller of roundCents"}');
INSERT INTO message VALUES ('msg_6b2e41c40003kKlLmMnNoOpP23', 'ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 1777712441400, 1777712459000,
 '{"role":"assistant","time":{"created":1777712441400,"completed":1777712459000},"parentID":"msg_6b2e41c40001kKlLmMnNoOpP21","modelID":"anthropic/claude-haiku-4.5","providerID":"kilo","mode":"explore","agent":"explore","path":{"cwd":"/home/u/shop","root":"/home/u/shop"},"cost":0.0009,"tokens":{"input":1900,"output":80,"reasoning":0,"cache":{"read":0,"write":1500}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_6b2e41c40004kKlLmMnNoOpP24', 'msg_6b2e41c40003kKlLmMnNoOpP23', 'ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 1777712458000, 1777712458000,
 '{"type":"text","text":"Two callers: cart.Total and invoice.Render"}');

-- A session across midnight (UTC): a reply the provider cut off with an error after it had counted tokens, a retry that answers the next day.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated, workspace_id, current_state, recent_progress)
 VALUES ('ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 'prj_7c41e2', NULL, 'late-badger', '/home/u/shop/web', '更新 checkout 页面', '7.2.15', 1777847400000, 1777853460000, 'wrk_01', NULL, 'Asked to update the checkout page.');
INSERT INTO message VALUES ('msg_6b2f90d20001kKlLmMnNoOpP31', 'ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 1777847401000, 1777847401000,
 '{"role":"user","time":{"created":1777847401000},"agent":"code","model":{"providerID":"openrouter","modelID":"openai/gpt-5.1"}}');
INSERT INTO part VALUES ('prt_6b2f90d20002kKlLmMnNoOpP32', 'msg_6b2f90d20001kKlLmMnNoOpP31', 'ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 1777847401000, 1777847401000,
 '{"type":"text","text":"更新 checkout 页面的按钮文案 and the tax line"}');
INSERT INTO message VALUES ('msg_6b2f90d30003kKlLmMnNoOpP33', 'ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 1777851000000, 1777851030000,
 '{"role":"assistant","time":{"created":1777851000000},"error":{"name":"APIError","data":{"message":"upstream connection reset","isRetryable":true}},"parentID":"msg_6b2f90d20001kKlLmMnNoOpP31","modelID":"openai/gpt-5.1","providerID":"openrouter","mode":"code","agent":"code","path":{"cwd":"/home/u/shop/web","root":"/home/u/shop"},"cost":0.004,"tokens":{"input":3100,"output":40,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_6b2f90d30004kKlLmMnNoOpP34', 'msg_6b2f90d30003kKlLmMnNoOpP33', 'ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 1777851001000, 1777851001000,
 '{"type":"retry","attempt":1,"error":{"name":"APIError","data":{"message":"upstream connection reset","isRetryable":true}},"time":{"created":1777851001000}}');
INSERT INTO message VALUES ('msg_6b2f90d40005kKlLmMnNoOpP35', 'ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 1777853400000, 1777853460000,
 '{"role":"assistant","time":{"created":1777853400000,"completed":1777853460000},"parentID":"msg_6b2f90d20001kKlLmMnNoOpP31","modelID":"openai/gpt-5.1","providerID":"openrouter","mode":"code","agent":"code","path":{"cwd":"/home/u/shop/web","root":"/home/u/shop"},"cost":0.011,"tokens":{"input":3300,"output":260,"reasoning":120,"cache":{"read":2900,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_6b2f90d40006kKlLmMnNoOpP36', 'msg_6b2f90d40005kKlLmMnNoOpP35', 'ses_6b2f90d11ffeGh2Jk5Mn8Pq3Rs', 1777853450000, 1777853450000,
 '{"type":"text","text":"按钮改为“去结算”，and the tax line now shows before the total."}');
