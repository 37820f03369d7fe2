// Drives three `mcp_server` replicas behind a load balancer (round-robin,
// no affinity) with the official MCP TypeScript SDK, on a 2025-11-25
// session: the session's state must hold whichever replica answers, a
// replica killed mid-run must cost at most the calls in flight on it, and
// a Redis restart must give errors, then recover.
//
// Usage: node mcp_replicas_ts.mjs URL WORKSPACE
// Run by examples/tests/it/mcp_replicas.rs, which owns the replicas, the
// balancer and Redis. The two talk over lines: this script prints
// `phase <name>` and waits for the harness's answer on stdin (`killed`,
// `down`, `up`); it ends with one JSON summary line, or exits non-zero
// with the reason.

import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(process.env.REGISTRY_MCP_NODE_MODULES + "/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

function check(condition, message) {
  if (!condition) {
    console.error(`check failed: ${message}`);
    process.exit(1);
  }
}

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function phase(name, expected) {
  console.log(`phase ${name}`);
  const { value, done } = await lines.next();
  check(!done && value.trim() === expected, `harness answered ${value} to ${name}`);
}

const textOf = (result) =>
  (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");

const [url, workspace] = process.argv.slice(2);
writeFileSync(join(workspace, "hello.txt"), "hello from the replicas\n");

// Asks for the write grant, and asks of the Rule of Two: once the
// session has read a file, written one and fetched a web page, every call
// that brings a property asks (on whichever replica answers).
let asked = 0;
let ruleOfTwo = 0;
const client = new Client(
  { name: "ts-replicas", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } },
);
// When set, the next Rule of Two ask is held unanswered (its call stays in
// flight on its replica) until the phase that kills that replica is done.
let holdNextAsk = null;
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  if (request.params.message.includes("would complete the Rule of Two") && holdNextAsk) {
    const held = holdNextAsk;
    holdNextAsk = null;
    held.asked();
    await held.released;
    return { action: "decline" };
  }
  if (request.params.message.includes("would complete the Rule of Two")) {
    ruleOfTwo += 1;
    return { action: "accept", content: { decision: "once" } };
  }
  asked += 1;
  check(request.params.message.includes("write_file"), `asked ${request.params.message}`);
  return { action: "accept", content: { decision: "always" } };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
check(client.getServerVersion()?.name === "registry-examples", "server name");

// Every call is bounded: a call lost with a replica ends as an error.
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 10000 });
const listNames = async () => {
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 10000 });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
};

// Every call succeeds whichever replica answers.
for (let i = 0; i < 12; i++) {
  const read = await call("read_file", { path: "hello.txt" });
  check(!read.isError && textOf(read).includes("hello from the replicas"), `read ${i}: ${textOf(read)}`);
}

// A grant the client's user made holds on every replica.
for (let i = 0; i < 6; i++) {
  const wrote = await call("write_file", { path: "notes.txt", content: `note ${i}\n` });
  check(!wrote.isError, `write ${i}: ${textOf(wrote)}`);
}
check(asked === 1, `the user was asked ${asked} times for one grant`);

// A tool discovered through tool_search holds on every replica.
const before = await listNames();
check(before.includes("tool_search") && !before.includes("web_fetch"), `listed before: ${before}`);
const early = await call("web_fetch", { url: "http://example.com/" });
check(early.isError && textOf(early).includes("search"), `web_fetch before its discovery: ${textOf(early)}`);
const found = await call("tool_search", { query: "download a web page over http" });
check(!found.isError && textOf(found).includes("web_fetch"), `tool_search: ${textOf(found)}`);
for (let i = 0; i < 6; i++) {
  const fetched = await call("web_fetch", { url: "http://example.com/" });
  check(!fetched.isError, `web_fetch ${i} after its discovery: ${textOf(fetched)}`);
}
check((await listNames()).includes("web_fetch"), "web_fetch listed after its discovery");

// A modifier's state (the todo list in the session state) holds too.
const plan = [
  { content: "Serve from three replicas", status: "completed" },
  { content: "Survive a restart", status: "pending" },
];
check(!(await call("todo_write", { todos: plan })).isError, "the first plan");
for (let i = 0; i < 6; i++) {
  const replanned = await call("todo_write", { todos: plan });
  check(textOf(replanned).includes("replaced a list of 2 items"), `plan ${i}: ${textOf(replanned)}`);
}

// A replica killed mid-run: calls run three at a time until it is dead,
// and ten more each after; a call that fails is retried, and at most the
// calls in flight fail.
let failedOnce = 0;
let burstCalls = 0;
let killed = false;
const burst = async (worker) => {
  for (let after = 0; after < 10; ) {
    if (killed) after += 1;
    for (let attempt = 0; ; attempt++) {
      try {
        const read = await call("read_file", { path: "hello.txt" });
        if (!read.isError) break;
      } catch {}
      if (attempt === 0) failedOnce += 1;
      check(attempt < 5, `worker ${worker}: a call failed six times`);
      await new Promise((r) => setTimeout(r, 100));
    }
    burstCalls += 1;
  }
};
const killing = phase("kill", "killed").then(() => {
  killed = true;
});
await Promise.all([burst(0), burst(1), burst(2), killing]);
check(failedOnce <= 3, `${failedOnce} calls failed; at most the 3 in flight may`);

// Redis down: calls end in errors, never in a success that lost state,
// and every error names the store: an error result where the replica
// has the session, a JSON-RPC error where it cannot restore it.
await phase("redis-down", "down");
let errorResults = 0;
let thrownNamingTheStore = 0;
for (let i = 0; i < 6; i++) {
  try {
    const read = await call("write_file", { path: "notes.txt", content: "while down\n" });
    check(read.isError, `a call succeeded while the store was down: ${textOf(read)}`);
    check(textOf(read).includes("session store"), `an error result without the store: ${textOf(read)}`);
    errorResults += 1;
  } catch (err) {
    check(String(err).includes("session store"), `an error without the store: ${err}`);
    thrownNamingTheStore += 1;
  }
}
check(errorResults >= 1, "no error result named the store while it was down");
// A session opened while the store is down is known to its first replica
// only; the others cannot restore it, and say so with a JSON-RPC error
// (not a bare HTTP 500) that the SDK raises, naming the store.
let restoreRefusals = 0;
const fresh = new Client({ name: "ts-replicas-fresh", version: "1.0.0" }, { capabilities: {} });
fresh.onerror = () => {};
try {
  await fresh.connect(new StreamableHTTPClientTransport(new URL(url)));
  for (let i = 0; i < 4; i++) {
    try {
      const read = await fresh.callTool({ name: "read_file", arguments: { path: "hello.txt" } }, undefined, { timeout: 10000 });
      check(read.isError && textOf(read).includes("session store"), `a fresh session's call: ${textOf(read)}`);
    } catch (err) {
      check(String(err).includes("session store"), `a fresh session's error without the store: ${err}`);
      restoreRefusals += 1;
    }
  }
} catch (err) {
  check(String(err).includes("session store"), `connecting while the store was down: ${err}`);
  restoreRefusals += 1;
}
check(restoreRefusals >= 1, "no replica refused to restore a session while the store was down");
await fresh.close().catch(() => {});

// Redis back: calls recover, and the session's state is intact.
await phase("redis-up", "up");
let recovered = false;
for (let i = 0; i < 50 && !recovered; i++) {
  try {
    recovered = !(await call("read_file", { path: "hello.txt" })).isError;
  } catch {}
  if (!recovered) await new Promise((r) => setTimeout(r, 200));
}
check(recovered, "calls did not recover after Redis came back");
for (let i = 0; i < 3; i++) {
  check(!(await call("write_file", { path: "notes.txt", content: "after\n" })).isError, "write after");
  check(!(await call("web_fetch", { url: "http://example.com/" })).isError, "web_fetch after");
  check(textOf(await call("todo_write", { todos: plan })).includes("replaced a list of 2 items"), "plan after");
}
check(asked === 1, `the grant was lost: the user was asked ${asked} times`);
// The first web_fetch completed the three (read, written, fetched); from
// then on every call but todo_write (which brings none) asks, on every
// replica: 6 fetches before the burst, and the calls after it.
check(ruleOfTwo >= 7, `the Rule of Two asked ${ruleOfTwo} times`);

// A replica killed while it holds a call (waiting for this client's
// answer to its ask): the call ends with an error result saying the
// replica was lost and the call may have run, given by the replica the
// SDK resumes the call's stream on, long before the call's own timeout.
let asked_;
let release;
holdNextAsk = {
  asked: null,
  released: new Promise((resolve) => (release = resolve)),
};
const askedNow = new Promise((resolve) => (asked_ = resolve));
holdNextAsk.asked = asked_;
await phase("hold-start", "ready");
const held = client.callTool({ name: "web_fetch", arguments: { url: "http://example.com/held" } }, undefined, { timeout: 60000 });
await askedNow;
await phase("kill-holder", "killed");
const killedAt = Date.now();
const lost = await held;
const lostCallMs = Date.now() - killedAt;
release();
check(lost.isError, `the lost call did not end in an error: ${textOf(lost)}`);
check(textOf(lost).includes("was lost") && textOf(lost).includes("may have run"), `lost call: ${textOf(lost)}`);
await client.close();
console.log(JSON.stringify({ client: "typescript", protocol: "2025-11-25", asked, ruleOfTwo, failedOnce, burstCalls, errorResults, thrownNamingTheStore, restoreRefusals, lostCallMs, lostText: textOf(lost) }));
process.exit(0);
