#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/ (run from the repository
root; the output is checked in). Each seed is a starting point for the
fuzzer, chosen to reach one branch of its target: the fuzzer mutates
them, and `cargo test` replays them."""

import hashlib
import json
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.join(ROOT, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def picked(pick, value):
    return bytes([pick]) + json.dumps(value).encode()


ARGS = [
    {},
    {"path": "src/lib.rs"},
    {"path": "src/lib.rs", "offset": 3, "limit": None},
    {"path": "a", "content": "x\n"},
    {"path": "a", "old_string": "x", "new_string": "y", "replace_all": True},
    {"command": "git status"},
    {"command": "rm -rf /", "timeout_secs": 5},
    {"pattern": "fn main", "path": ".", "glob": "*.rs"},
    {"pattern": "**/*.rs"},
    {"url": "https://docs.rs/serde"},
    {"todos": [{"content": "a", "status": "pending", "activeForm": "doing a"}]},
    {"shape": {"kind": "circle", "centre": {"x": 1, "y": 2}, "radius": 1.5},
     "target": {"x": 0, "y": 0}, "label": None},
    {"shape": {"kind": "polygon", "corners": [{"x": 1, "y": 2}]}, "target": "name",
     "mode": {"slow": 3}, "label": "l", "layers": [None, {"x": 1, "y": 1}],
     "weights": {"7": 0.5}, "opacity": 255, "span": [1, -1]},
    {"shape": {"kind": "empty"}, "target": 7, "mode": "fast", "label": None},
    {"shape": {"kind": "empty"}, "target": 300, "label": None, "opacity": 256},
    {"root": {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}},
    {"root": {"name": "a", "children": None}, "depth": None},
    {"path": None, "offset": "3"},
    [1, 2],
    "text",
    None,
]

for pick in range(16):
    for args in ARGS:
        write("prepare", picked(pick, args))
        write("input_deser", picked(pick, args))

for rule in [
    "run_command", "run_command(git push:*)", "run_command(npm run test)",
    "read_file(secrets/**)", "read_file(./src/*.rs)", "write_file(/etc/*)",
    "web_fetch(domain:docs.rs)", "mcp__github", "mcp__github__*",
    "mcp__github__create_issue", "run_command(echo \\(x\\))",
    "run_command(a\\\\b)", "edit_file(**/*.env)", "Bash(ls:*)", "tool_search",
    "run_command()", "run_command(*)", "x(y", "mcp__", "mcp__a__b(c)",
]:
    write("rules", rule)

for command in [
    "ls -la", "git status", "'rm' -f x", "/bin/rm -f x", "nice -n 5 rm -f x",
    "2>/dev/null rm -f x", "c=rm; $c -f x", "echo rm -f x | sh",
    "f() { rm -f x; }; f", "sh -c 'rm -f x'", "ls && { rm -f x; }",
    "echo $(rm -f x)", "cat <<EOF\n$(id)\nEOF\n", "env A=1 B=2 ls",
    "sudo -u root cat /etc/shadow", "timeout 5 find . -name '*.rs' -exec rm {} +",
    "xargs rm < list", "for f in *; do echo \"$f\"; done", "git -C repo log --oneline",
    "echo \"a b\" 'c d' e\\ f", "if true; then ls; fi", "case x in x) ls;; esac",
    "busybox rm x", "echo ${x:-$(id)}", "a=$((1+2)) ls", "echo $'\\x41'",
    "grep -r 'fn main' src | head -5", "cd /tmp && ls", "echo hi > out.txt",
    "(cd a; ls) | wc -l", "ls \\\n -la", "command -v ls", "exec ls",
    "eval 'rm -rf /'", "find . -delete", "git push --force origin main",
    "cat ../../etc/passwd", "printf '%s\\n' a b", "echo 'it'\\''s'",
]:
    write("shell", command)

def rpc(method, params=None, id=1):
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)

for frame in [
    rpc("tools/list"),
    rpc("tools/list", {"cursor": "page:1"}),
    rpc("tools/list", {"cursor": "nonsense"}),
    rpc("tools/call", {"name": "draw", "arguments": {"shape": {"kind": "empty"}, "target": 1, "label": None}}),
    rpc("tools/call", {"name": "tree", "arguments": {"root": {"name": "a"}}}, id="s"),
    rpc("tools/call", {"name": "run_command", "arguments": {"command": "ls"}}),
    rpc("tools/call", {"name": "draw", "arguments": {"shape": 1}}),
    rpc("tools/call", {"name": "nope"}),
    rpc("tools/call", {}),
    rpc("ping"),
    rpc("resources/list"),
    rpc("prompts/list"),
    rpc("logging/setLevel", {"level": "debug"}),
    rpc("completion/complete", {"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}}),
    rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    json.dumps({"jsonrpc": "2.0", "id": 99, "result": {}}),
    json.dumps({"jsonrpc": "2.0", "id": 98, "error": {"code": -1, "message": "x"}}),
    json.dumps([json.loads(rpc("ping")), json.loads(rpc("tools/list", id=2))]),
    rpc("tools/list") + "\n" + rpc("tools/call", {"name": "tree", "arguments": {"root": {"name": "b"}}}, id=2),
    "{not json",
    "",
    "\xff\xfe",
    json.dumps({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
    json.dumps({"jsonrpc": "2.0", "id": None, "method": "ping"}),
    json.dumps({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
]:
    write("mcp_frames", frame)

lock_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "tools.lock.json")
with open(lock_path) as f:
    lock = f.read()
write("lock", lock)
document = json.loads(lock)
write("lock", json.dumps(document))
write("lock", json.dumps({"version": document.get("version"), "tools": {}}))
write("lock", json.dumps({"version": 999, "tools": {}}))
first = dict(list(document["tools"].items())[:1])
write("lock", json.dumps({**document, "tools": first}, indent=1))
write("lock", "{}")
write("lock", "[]")

for max_results in [0, 1, 5, 50, 51, 255]:
    for query in [
        "read file", "select:draw", "select:draw,tree", "select:nope",
        "+mcp__github merge", "mcp__slack", "mcp__github__create_issue",
        "", "   ", "shell command", "-x", "+", "draw tree shape polygon",
        "é ü 漢字", "a" * 200, "select:", "mcp__", "+read +file -write",
    ]:
        write("tool_search", bytes([max_results]) + query.encode())
