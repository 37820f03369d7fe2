"""Drives registry-examples' `mcp_server` with the official MCP Python SDK.

A client nobody in this repository wrote: it lists the tools (every page),
calls a read-only tool, a call that fails (an error result), and a call
the server refuses (an approval nobody can give over MCP), and checks what
came back. Prints one JSON summary line on success; exits non-zero with the
reason otherwise.

Usage: mcp_python_client.py SERVER_BINARY WORKSPACE
Run by examples/tests/it/mcp_python.rs with the virtualenv `.ci/run` creates.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp import types
from mcp.client.stdio import stdio_client


def check(condition, message):
    if not condition:
        raise SystemExit(f"check failed: {message}")


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main(server, workspace):
    with open(os.path.join(workspace, "hello.txt"), "w") as f:
        f.write("hello from python\n")
    params = StdioServerParameters(
        command=server,
        # A small page size, so the client must follow the cursor.
        args=["--workspace", workspace, "--page-size", "4"],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "registry-examples", f"server name {init.server_info.name!r}")

            tools, cursor, pages = [], None, 0
            while True:
                page = await session.list_tools(
                    params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
                )
                pages += 1
                check(len(page.tools) <= 4, f"page of {len(page.tools)} tools")
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            names = [tool.name for tool in tools]
            check(pages >= 2, f"only {pages} page(s)")
            check(len(names) == len(set(names)), f"duplicate tools across pages: {names}")
            for expected in ("read_file", "write_file", "list_dir"):
                check(expected in names, f"{expected} missing from {names}")
            read_file = next(tool for tool in tools if tool.name == "read_file")
            check(read_file.input_schema.get("type") == "object", "read_file's input schema")
            check(read_file.annotations is not None and read_file.annotations.read_only_hint is True,
                  "read_file is read-only")

            ok = await session.call_tool("read_file", {"path": "hello.txt"})
            check(not ok.is_error, f"read_file failed: {text_of(ok)}")
            check("hello from python" in text_of(ok), f"read_file said {text_of(ok)!r}")

            failed = await session.call_tool("read_file", {"path": "missing.txt"})
            check(failed.is_error, "reading a missing file is an error result")
            check("missing.txt" in text_of(failed), f"the error names the file: {text_of(failed)!r}")

            invalid = await session.call_tool("read_file", {"path": 7})
            check(invalid.is_error, "a bad argument is an error result")

            denied = await session.call_tool("write_file", {"path": "out.txt", "content": "x"})
            check(denied.is_error, "write_file without an approver is refused")
            check("approval" in text_of(denied), f"the refusal says approval is needed: {text_of(denied)!r}")
            check(not os.path.exists(os.path.join(workspace, "out.txt")), "the refused write did not happen")

    print(json.dumps({"ok": True, "tools": len(names), "pages": pages}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
