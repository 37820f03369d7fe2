// Drives registry-examples' `mcp_server` with the official MCP TypeScript
// SDK, over stdio and over streamable HTTP: a client nobody in this
// repository wrote. Lists every page of tools, calls a read-only tool with
// a progress token, a call that fails (an error result), and a call the
// server refuses (an approval nobody can give over MCP), and checks what
// came back. Prints one JSON summary line on success; exits non-zero with
// the reason otherwise.
//
// Usage: node mcp_ts_client.mjs SERVER_BINARY WORKSPACE
// Run by examples/tests/it/mcp_node.rs with the node_modules `.ci/run`
// installs (NODE_PATH points there).

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(process.env.REGISTRY_MCP_NODE_MODULES + "/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

function check(condition, message) {
  if (!condition) {
    console.error(`check failed: ${message}`);
    process.exit(1);
  }
}

const textOf = (result) =>
  result.content.filter((b) => b.type === "text").map((b) => b.text).join("");

async function exercise(client, label) {
  const info = client.getServerVersion();
  check(info?.name === "registry-examples", `${label}: server name ${info?.name}`);
  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages += 1;
    check(page.tools.length <= 4, `${label}: a page of ${page.tools.length} tools`);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  check(pages >= 2, `${label}: only ${pages} page(s)`);
  check(new Set(names).size === names.length, `${label}: duplicates across pages`);
  for (const expected of ["read_file", "write_file", "list_dir"]) {
    check(names.includes(expected), `${label}: ${expected} missing`);
  }
  const read = await client.callTool(
    { name: "read_file", arguments: { path: "hello.txt" } },
    undefined,
    { onprogress: () => {} },
  );
  check(!read.isError, `${label}: read_file failed: ${textOf(read)}`);
  check(textOf(read).includes("hello from typescript"), `${label}: read_file said ${textOf(read)}`);
  const missing = await client.callTool({ name: "read_file", arguments: { path: "nope.txt" } });
  check(missing.isError === true, `${label}: a missing file is not an error result`);
  const refused = await client.callTool({
    name: "write_file",
    arguments: { path: "x.txt", content: "x" },
  });
  check(refused.isError === true, `${label}: write_file was not refused`);
  check(textOf(refused).includes("approval"), `${label}: refusal says ${textOf(refused)}`);
  // `run_command` is declared long-running: a client that negotiates the
  // Tasks extension gets a task; this one (2025-11-25, no extension) gets
  // the ordinary call and its result.
  const longRunning = await client.callTool({
    name: "run_command",
    arguments: { command: "cat hello.txt" },
  });
  check(!longRunning.isError, `${label}: run_command failed: ${textOf(longRunning)}`);
  check(!("task" in longRunning) && !("taskId" in longRunning), `${label}: run_command came back as a task`);
  check(textOf(longRunning).includes("hello from typescript"), `${label}: run_command said ${textOf(longRunning)}`);
  return { label, pages, tools: names.length };
}

async function overStdio(server, workspace) {
  const transport = new StdioClientTransport({
    command: server,
    args: ["--workspace", workspace, "--page-size", "4"],
    stderr: "pipe",
  });
  const client = new Client({ name: "ts-interop", version: "1.0.0" });
  await client.connect(transport);
  try {
    return await exercise(client, "stdio");
  } finally {
    await client.close();
  }
}

async function overHttp(server, workspace) {
  const child = spawn(
    server,
    ["--http", "127.0.0.1:0", "--workspace", workspace, "--page-size", "4"],
    { env: { ...process.env, MCP_SERVER_TOKEN: "ts-token" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${seen}`)), 20000);
    child.stderr.on("data", (chunk) => {
      seen += chunk.toString();
      const match = seen.match(/https?:\/\/\S+/);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${seen}`)));
  });
  try {
    // A wrong token is refused before MCP starts.
    const denied = new Client({ name: "ts-interop", version: "1.0.0" });
    let refused = false;
    try {
      await denied.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: "Bearer wrong" } },
        }),
      );
    } catch {
      refused = true;
    }
    check(refused, "http: a wrong token was accepted");
    const client = new Client({ name: "ts-interop", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: "Bearer ts-token" } },
      }),
    );
    try {
      return await exercise(client, "http");
    } finally {
      await client.close();
    }
  } finally {
    child.kill();
  }
}

const [server, workspace] = process.argv.slice(2);
writeFileSync(join(workspace, "hello.txt"), "hello from typescript\n");
const stdio = await overStdio(server, workspace);
const http = await overHttp(server, workspace);
console.log(JSON.stringify({ stdio, http }));
