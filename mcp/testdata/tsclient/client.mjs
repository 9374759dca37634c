// A second client of tape mcp, one that no one here wrote: the TypeScript
// SDK's (@modelcontextprotocol/sdk). It builds a small workspace with the
// tape binary it is given, starts `tape mcp` on it over stdio, lists the
// tools, calls search and context and a few others, and checks what they
// answer, the SDK checking each structured result against the tool's
// output schema. Any failure exits non-zero.
//
//   npm ci && node client.mjs /path/to/tape
//
// .ci/run runs it after go test, with a binary it has just built.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const tape = process.argv[2] ?? process.env.TAPE_BIN;
if (!tape) {
  console.error("usage: node client.mjs /path/to/tape");
  process.exit(2);
}

// No watcher is started on demand: it would outlive the workspace.
const env = { ...process.env, TAPE_WATCH: "off", TAPE_NAME: "", TAPE_DIR: "" };
const dir = mkdtempSync(join(tmpdir(), "tape-tsclient-"));
const run = (...args) => execFileSync(tape, args, { cwd: dir, env, encoding: "utf8" });

let client;
try {
  run("init");
  run("append", "--kind", "message", JSON.stringify({ role: "user", content: "why does the flush test time out?" }));
  run("append", "--kind", "tool_call", JSON.stringify({ calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] }));
  run("append", "--kind", "tool_result", JSON.stringify({ results: [{ tool_call_id: "c1", content: "FAIL: flush timeout after 1ms" }] }));
  run("handoff", "fix", "--summary", "the flush timeout is too short");
  run("append", "--kind", "message", JSON.stringify({ role: "assistant", content: "raised the flush timeout to 1s" }));

  client = new Client({ name: "tape-ci-tsclient", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: tape, args: ["mcp"], cwd: dir, env, stderr: "inherit" }));
  assert.equal(client.getServerVersion()?.name, "tape");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["anchors", "append", "calls", "context", "handoff", "log", "search", "show", "tapes", "usage"]);
  for (const t of tools) {
    assert.ok(t.description, `tool ${t.name} has a description`);
    assert.equal(t.inputSchema.type, "object", `tool ${t.name} takes an object`);
    assert.ok(t.outputSchema, `tool ${t.name} has an output schema`);
  }

  // search: the hits, best first, with tape, anchor, id, date and snippet.
  const search = await client.callTool({ name: "search", arguments: { query: "flush timeout" } });
  assert.ok(!search.isError, `search failed: ${JSON.stringify(search.content)}`);
  const found = search.structuredContent.hits;
  // The entries with both words, then (the relaxed pass) those with one.
  const hits = found.filter((h) => h.match === "all");
  assert.equal(hits.length, 3, JSON.stringify(found));
  assert.ok(found.slice(hits.length).every((h) => h.match === "some"), JSON.stringify(found));
  for (const h of hits) {
    assert.equal(h.tape, "main");
    assert.ok(h.id && h.date && h.anchor, JSON.stringify(h));
    assert.match(h.snippet, /\*\*flush\*\*/);
  }
  assert.ok(hits.some((h) => h.kind === "tool_result" && h.snippet.includes("1ms")));
  assert.match(search.content[0].text, /\*\*flush\*\*/);

  // context: the messages of the current phase, ready for a model.
  const context = await client.callTool({ name: "context", arguments: {} });
  assert.ok(!context.isError, `context failed: ${JSON.stringify(context.content)}`);
  assert.deepEqual(context.structuredContent.messages, [{ role: "assistant", content: "raised the flush timeout to 1s" }]);
  assert.deepEqual(JSON.parse(context.content[0].text), context.structuredContent.messages);

  // The whole tape: the call paired with its result, the anchor as a note.
  const all = await client.callTool({ name: "context", arguments: { all: true } });
  const roles = all.structuredContent.messages.map((m) => m.role);
  assert.deepEqual(roles, ["assistant", "user", "assistant", "tool", "assistant", "assistant"]);
  assert.equal(all.structuredContent.messages[3].tool_call_id, "c1");

  // Under a budget: the newest that fit, the tool call kept with its result.
  const fit = await client.callTool({ name: "context", arguments: { all: true, max_tokens: 60 } });
  assert.ok(!fit.isError, `context max_tokens failed: ${JSON.stringify(fit.content)}`);
  assert.ok(fit.structuredContent.dropped > 0 && fit.structuredContent.estimate <= 60, JSON.stringify(fit.structuredContent));
  assert.equal(fit.structuredContent.max_tokens, 60);

  // A bad argument is a tool error that says what was wrong.
  const bad = await client.callTool({ name: "search", arguments: { query: "flush", limit: -1 } });
  assert.ok(bad.isError);
  assert.match(bad.content[0].text, /limit/);

  // Read only: a write says how to enable it.
  const write = await client.callTool({ name: "append", arguments: { kind: "note", payload: { text: "x" } } });
  assert.ok(write.isError);
  assert.match(write.content[0].text, /--allow-write/);

  // Resources: the tape and its anchors, readable as JSON lines.
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), ["tape://main", "tape://main/001_session-start", "tape://main/002_fix"]);
  const fix = await client.readResource({ uri: "tape://main/002_fix" });
  const lines = fix.contents[0].text.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((e) => e.kind), ["anchor", "message"]);

  console.log(`tsclient: ok: ${names.length} tools; search found ${hits.length}; context holds ${all.structuredContent.messages.length} messages`);
} catch (err) {
  console.error("tsclient: FAIL:", err);
  process.exitCode = 1;
} finally {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
}
