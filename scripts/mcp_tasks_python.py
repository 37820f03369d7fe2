"""Calls registry-examples' long-running tool as a task, with the official
MCP Python SDK on protocol 2026-07-28.

The SDK has no Tasks client of its own; it has the extension mechanism a
Tasks client is written with (`ClientExtension`, a `ResultClaim` on the
`"task"` result type), and that is what this script uses, the way an
application would: the extension is declared in the request's client
capabilities, a `tools/call` answered with a task handle is resolved by
polling `tasks/get`, questions the task asks (`input_required`) are
answered with `tasks/update`, and `tasks/cancel` cancels one.

Checks:
- `run_command` (declared `long_running`) comes back as a task; the task
  asks for approval through `input_required`, is answered, and completes
  with the command's output;
- `read_file` (not long-running) comes back as a plain result;
- a `sleep 30` task is cancelled and reads `cancelled` soon after.

Prints one JSON summary line on success; exits non-zero with the reason
otherwise.

Usage: mcp_tasks_python.py URL WORKSPACE
Run by examples/tests/it/mcp_python.rs, which starts `mcp_server --http`.
"""

import asyncio
import json
import os
import sys
import time
from typing import Any, ClassVar, Literal

from mcp.client.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict, TypeAdapter

TASKS = "io.modelcontextprotocol/tasks"
ANY = TypeAdapter(dict[str, Any])


def check(condition, message):
    if not condition:
        raise SystemExit(f"check failed: {message}")


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


class TaskHandle(Result):
    """A `tools/call` answered with a task (SEP-2663 `CreateTaskResult`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskParams(RequestParams):
    task_id: str


class TaskUpdateParams(TaskParams):
    input_responses: dict[str, Any]


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class UpdateTask(Request[TaskUpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


class Tasks(ClientExtension):
    """The Tasks extension, client side: polls a task to its end."""

    identifier = TASKS

    def __init__(self):
        self.created = []
        self.statuses = []
        self.asked = []
        # Task ids whose resolution should stop at once (cancelled by the
        # test, from outside).
        self.to_cancel = set()
        self.answered = set()

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
        self.created.append((ctx.tool_name, handle.task_id))
        pause = (handle.poll_interval_ms or 500) / 1000
        while True:
            got = await ctx.session.send_request(GetTask(params=TaskParams(task_id=handle.task_id)), ANY)
            status = got["status"]
            if handle.task_id in self.to_cancel and handle.task_id in self.answered and status == "working":
                # Running, approved: cancelled now, and polled once more.
                self.statuses.append((handle.task_id, status, got.get("statusMessage")))
                await ctx.session.send_request(CancelTask(params=TaskParams(task_id=handle.task_id)), ANY)
                self.to_cancel.discard(handle.task_id)
                continue
            self.statuses.append((handle.task_id, status, got.get("statusMessage")))
            if status == "completed":
                return CallToolResult.model_validate(got["result"])
            if status in ("failed", "cancelled"):
                return CallToolResult(
                    content=[{"type": "text", "text": f"task {status}: {got.get('statusMessage') or got.get('error')}"}],
                    is_error=True,
                )
            if status == "input_required":
                answers = {}
                for key, question in got["inputRequests"].items():
                    message = question.get("params", {}).get("message", "")
                    self.asked.append(message)
                    answers[key] = {"action": "accept", "content": {"decision": "once"}}
                await ctx.session.send_request(
                    UpdateTask(params=TaskUpdateParams(task_id=handle.task_id, input_responses=answers)), ANY
                )
                self.answered.add(handle.task_id)
            await asyncio.sleep(pause)


async def main(url, workspace):
    with open(os.path.join(workspace, "hello.txt"), "w") as f:
        f.write("hello from a task\n")
    tasks = Tasks()

    async def on_elicit(context, params):
        raise SystemExit(f"asked outside a task: {params.message!r}")

    async with Client(
        url, extensions=[tasks], elicitation_callback=on_elicit, cache=None, read_timeout_seconds=20
    ) as client:
        version = getattr(client.session, "protocol_version", None)
        check(version == "2026-07-28", f"negotiated {version!r}, not 2026-07-28")

        # A long-running tool: a task, which asks for approval on the way.
        started = time.monotonic()
        result = await client.call_tool(
            "run_command", {"command": "sleep 1 && cat hello.txt && echo finished > done.txt"}
        )
        elapsed = time.monotonic() - started
        check(not result.is_error, f"run_command failed: {text_of(result)}")
        check("hello from a task" in text_of(result), f"run_command said {text_of(result)!r}")
        check(len(tasks.created) == 1 and tasks.created[0][0] == "run_command", f"tasks: {tasks.created}")
        seen = [status for _, status, _ in tasks.statuses]
        check("input_required" in seen, f"the task never asked: {seen}")
        check(seen[-1] == "completed", f"statuses: {seen}")
        check(any("run_command" in message for message in tasks.asked), f"asked: {tasks.asked}")
        check(os.path.exists(os.path.join(workspace, "done.txt")), "the command did not run")

        # Not long-running: a plain result, no task.
        plain = await client.call_tool("read_file", {"path": "hello.txt"})
        check(not plain.is_error, f"read_file failed: {text_of(plain)}")
        check(len(tasks.created) == 1, f"read_file became a task: {tasks.created}")

        # Cancelled: the task of a long command is cancelled once it runs
        # (after its approval), reads cancelled, and the command is
        # stopped: what it would have written later never appears.
        async def cancel_soon():
            while len(tasks.created) < 2:
                await asyncio.sleep(0.02)
            tasks.to_cancel.add(tasks.created[1][1])

        started = time.monotonic()
        cancelled, _ = await asyncio.gather(
            client.call_tool("run_command", {"command": "sleep 3 && echo late > late.txt"}), cancel_soon()
        )
        cancel_took = time.monotonic() - started
        check(cancelled.is_error, f"the cancelled task ended well: {text_of(cancelled)}")
        check("task cancelled" in text_of(cancelled), f"cancelled task said {text_of(cancelled)!r}")
        check(cancel_took < 3, f"cancelling took {cancel_took:.1f} s, as long as the command")
        statuses = [status for task, status, _ in tasks.statuses if task == tasks.created[1][1]]
        check(statuses[-2:] == ["working", "cancelled"], f"statuses: {statuses}")
        await asyncio.sleep(4)
        check(not os.path.exists(os.path.join(workspace, "late.txt")), "the cancelled command ran on")

    print(
        json.dumps(
            {
                "ok": True,
                "protocol": version,
                "tasks": len(tasks.created),
                "statuses": [status for _, status, _ in tasks.statuses],
                "task_seconds": round(elapsed, 2),
                "cancel_seconds": round(cancel_took, 2),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
