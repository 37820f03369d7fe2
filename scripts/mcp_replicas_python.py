"""Drives three `mcp_server` replicas behind a load balancer (round-robin,
no affinity) with the official MCP Python SDK on protocol 2026-07-28,
which has no sessions: the conversation is the handle the server hands
out in a result's `_meta`, sent back with every request. Its state must
hold whichever replica answers, a replica killed mid-run must cost at
most the calls in flight on it, and a Redis restart must give error
results, then recover.

Usage: mcp_replicas_python.py URL WORKSPACE
Run by examples/tests/it/mcp_replicas.rs, which owns the replicas, the
balancer and Redis. The two talk over lines: this script prints
`phase <name>` and waits for the harness's answer on stdin (`killed`,
`down`, `up`); it ends with one JSON summary line, or exits non-zero with
the reason.
"""

import asyncio
import json
import os
import sys

from mcp import types
from mcp.client.client import Client

CONVERSATION = "tool-registry.dev/conversation"


def check(condition, message):
    if not condition:
        raise SystemExit(f"check failed: {message}")


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def phase(name, expected):
    print(f"phase {name}", flush=True)
    answer = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    check(answer.strip() == expected, f"harness answered {answer!r} to {name}")


async def main(url, workspace):
    with open(os.path.join(workspace, "hello.txt"), "w") as f:
        f.write("hello from the replicas\n")
    # Asks for the write grant, and asks of the Rule of Two: once the
    # conversation has read a file, written one and fetched a web page,
    # every call that brings a property asks, on whichever replica answers.
    asked = []
    rule_of_two = []

    async def on_elicit(context, params):
        if "would complete the Rule of Two" in params.message:
            rule_of_two.append(params.message)
            return types.ElicitResult(action="accept", content={"decision": "once"})
        asked.append(params.message)
        check("write_file" in params.message, f"asked {params.message!r}")
        return types.ElicitResult(action="accept", content={"decision": "always"})

    # No response cache: every listing must reach a replica.
    async with Client(url, elicitation_callback=on_elicit, cache=None, read_timeout_seconds=10) as client:
        version = getattr(client.session, "protocol_version", None)
        check(version == "2026-07-28", f"negotiated {version!r}, not 2026-07-28")
        handle = {}

        async def call(name, arguments):
            meta = {CONVERSATION: handle["id"]} if "id" in handle else None
            result = await client.call_tool(name, arguments, meta=meta)
            given = (result.meta or {}).get(CONVERSATION)
            if given:
                check(handle.get("id", given) == given, f"the handle changed: {handle} -> {given}")
                handle["id"] = given
            return result

        async def names():
            listed, cursor = [], None
            while True:
                page = await client.list_tools(cursor=cursor, meta={CONVERSATION: handle["id"]})
                listed.extend(tool.name for tool in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return listed

        for i in range(12):
            read = await call("read_file", {"path": "hello.txt"})
            check(not read.is_error and "hello from the replicas" in text_of(read), f"read {i}: {text_of(read)}")

        # The first write is asked through an input-required result; the
        # SDK answers it and retries. The conversation's handle comes back.
        for i in range(6):
            wrote = await call("write_file", {"path": "notes.txt", "content": f"note {i}\n"})
            check(not wrote.is_error, f"write {i}: {text_of(wrote)}")
        check(len(asked) == 1, f"the user was asked {len(asked)} times for one grant")
        check("id" in handle, "no conversation handle was handed out")

        before = await names()
        check("tool_search" in before and "web_fetch" not in before, f"listed before: {before}")
        early = await call("web_fetch", {"url": "http://example.com/"})
        check(early.is_error and "search" in text_of(early), f"web_fetch before discovery: {text_of(early)}")
        found = await call("tool_search", {"query": "download a web page over http"})
        check(not found.is_error and "web_fetch" in text_of(found), f"tool_search: {text_of(found)}")
        for i in range(6):
            fetched = await call("web_fetch", {"url": "http://example.com/"})
            check(not fetched.is_error, f"web_fetch {i} after discovery: {text_of(fetched)}")
        check("web_fetch" in await names(), "web_fetch listed after its discovery")

        plan = [
            {"content": "Serve from three replicas", "status": "completed"},
            {"content": "Survive a restart", "status": "pending"},
        ]
        check(not (await call("todo_write", {"todos": plan})).is_error, "the first plan")
        for i in range(6):
            replanned = await call("todo_write", {"todos": plan})
            check("replaced a list of 2 items" in text_of(replanned), f"plan {i}: {text_of(replanned)}")

        # A replica killed mid-run: three calls at a time until it is dead,
        # and ten more each after; a call that fails is retried.
        failed_once, calls_made = 0, 0
        killed = asyncio.Event()

        async def burst(worker):
            nonlocal failed_once, calls_made
            after = 0
            while after < 10:
                if killed.is_set():
                    after += 1
                for attempt in range(6):
                    try:
                        read = await call("read_file", {"path": "hello.txt"})
                        if not read.is_error:
                            break
                    except Exception:  # a call lost with its replica
                        pass
                    if attempt == 0:
                        failed_once += 1
                    await asyncio.sleep(0.1)
                else:
                    raise SystemExit(f"worker {worker}: a call failed six times")
                calls_made += 1

        async def kill():
            await phase("kill", "killed")
            killed.set()

        await asyncio.gather(burst(0), burst(1), burst(2), kill())
        check(failed_once <= 3, f"{failed_once} calls failed; at most the 3 in flight may")

        # Every error while the store is down names it: an error result,
        # or an error the SDK raises.
        await phase("redis-down", "down")
        error_results, raised_naming_the_store = 0, 0
        for i in range(6):
            try:
                result = await call("write_file", {"path": "notes.txt", "content": "while down\n"})
            except Exception as err:  # noqa: BLE001 - any error must name the store
                check("session store" in str(err), f"an error without the store: {err!r}")
                raised_naming_the_store += 1
                continue
            check(result.is_error, f"a call succeeded while the store was down: {text_of(result)}")
            check("session store" in text_of(result), f"an error result without the store: {text_of(result)}")
            error_results += 1
        check(error_results >= 1, "no error result named the store while it was down")

        await phase("redis-up", "up")
        recovered = False
        for _ in range(50):
            try:
                recovered = not (await call("read_file", {"path": "hello.txt"})).is_error
            except Exception:
                recovered = False
            if recovered:
                break
            await asyncio.sleep(0.2)
        check(recovered, "calls did not recover after Redis came back")
        for _ in range(3):
            check(not (await call("write_file", {"path": "notes.txt", "content": "after\n"})).is_error, "write after")
            check(not (await call("web_fetch", {"url": "http://example.com/"})).is_error, "web_fetch after")
            replanned = await call("todo_write", {"todos": plan})
            check("replaced a list of 2 items" in text_of(replanned), "plan after")
        check(len(asked) == 1, f"the grant was lost: asked {len(asked)} times")
        # The first web_fetch completed the three; the history holds on
        # every replica, so the calls after it that bring a property ask.
        check(len(rule_of_two) >= 7, f"the Rule of Two asked {len(rule_of_two)} times")

    print(json.dumps({
        "client": "python",
        "protocol": "2026-07-28",
        "asked": len(asked),
        "rule_of_two": len(rule_of_two),
        "failed_once": failed_once,
        "burst_calls": calls_made,
        "error_results": error_results,
        "raised_naming_the_store": raised_naming_the_store,
    }), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
