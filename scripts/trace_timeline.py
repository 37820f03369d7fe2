#!/usr/bin/env python3
"""Draw one executor turn from a Chrome trace-event file as a PNG timeline.

The demo writes the trace:

    cargo run -p registry-examples --bin demo -- --trace /tmp/trace.json

and this script draws it, one lane per tool call, the call's phases
(resolve, parse, classify, permission, run, cap) as coloured bars and each
batch as a shaded band, so the calls of a concurrent batch show side by side:

    python3 scripts/trace_timeline.py /tmp/trace.json docs/trace-timeline.png

Needs Python 3.9+ and matplotlib (tested with 3.11). This script installs
nothing; one way to get matplotlib without touching the system Python:

    python3 -m venv /tmp/venv-trace
    /tmp/venv-trace/bin/pip install matplotlib
    /tmp/venv-trace/bin/python scripts/trace_timeline.py /tmp/trace.json out.png

Perfetto (https://ui.perfetto.dev) and chrome://tracing open the same file
interactively; this picture is for places that only show images.

What it reads: the async-style events (`"ph": "b"` / `"e"`) that the demo's
tracing-chrome layer writes. A `tool_call` span carries the call's `index`
and `name` (and, on its end event, its `batch`); its phase spans share its
`id`. A `batch` span carries `batch`, `mode` and `calls`. Anything else
(instant events, the demo's other sections) is ignored.
"""

import json
import sys

PHASES = ["resolve", "parse", "classify", "permission", "run", "cap"]
COLORS = {
    "resolve": "#9e9e9e",
    "parse": "#bdbdbd",
    "classify": "#757575",
    "permission": "#f4a261",
    "run": "#2a9d8f",
    "cap": "#264653",
}
BATCH_COLORS = {"Concurrent": "#e9f5f2", "Serial": "#f7ece1"}


class TraceError(Exception):
    """The file is not a trace of an executor turn."""


def spans(events):
    """Pairs begin and end events by (name, id), in file order.

    Returns a list of dicts: name, id, start and end (microseconds), and the
    merged args of both events (the end event carries fields recorded later,
    such as a call's batch).
    """
    open_spans = {}
    done = []
    for event in events:
        phase = event.get("ph")
        if phase not in ("b", "e"):
            continue
        key = (event.get("name"), event.get("id"))
        if phase == "b":
            open_spans.setdefault(key, []).append(event)
            continue
        stack = open_spans.get(key)
        if not stack:
            continue  # an end without a begin: not ours to draw
        begin = stack.pop()
        args = dict(begin.get("args", {}))
        args.update(event.get("args", {}))
        done.append(
            {
                "name": key[0],
                "id": key[1],
                "start": float(begin["ts"]),
                "end": float(event["ts"]),
                "args": args,
            }
        )
    return done


def turn(all_spans):
    """The calls (by index) and batches of the first turn in the trace."""
    calls = {}
    for span in all_spans:
        if span["name"] == "tool_call":
            index = int(span["args"].get("index", -1))
            calls.setdefault(index, span)
    if not calls:
        raise TraceError("no `tool_call` span: was the trace written by `demo --trace`?")
    ids = {span["id"]: index for index, span in calls.items()}
    phases = {index: [] for index in calls}
    for span in all_spans:
        if span["name"] in PHASES and span["id"] in ids:
            phases[ids[span["id"]]].append(span)
    first = min(span["start"] for span in calls.values())
    last = max(span["end"] for span in calls.values())
    batches = [
        span
        for span in all_spans
        if span["name"] == "batch" and first <= span["start"] <= last
    ]
    batches.sort(key=lambda span: span["start"])
    return calls, phases, batches, first


def draw(calls, phases, batches, origin, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    ms = lambda ts: (ts - origin) / 1000.0
    order = sorted(calls)
    lane = {index: n for n, index in enumerate(order)}
    fig, ax = plt.subplots(figsize=(11, 0.45 * len(order) + 2.0), dpi=100)

    span_ms = max(ms(max(call["end"] for call in calls.values())), 1e-3)
    for batch in batches:
        args = batch["args"]
        mode = args.get("mode", "?")
        x0, x1 = ms(batch["start"]), ms(batch["end"])
        ax.axvspan(x0, x1, color=BATCH_COLORS.get(mode, "#eeeeee"), zorder=0)
        if x1 - x0 < 0.08 * span_ms:
            continue  # too narrow to label; the lane labels name the batch
        ax.text(
            x0 + 0.005 * span_ms,
            -0.6,
            f"batch {args.get('batch', '?')}\n{mode.lower()}",
            fontsize=8,
            va="bottom",
            ha="left",
            color="#333333",
        )

    for index in order:
        y = lane[index]
        call = calls[index]
        # The call's span lasts until the turn ends; its phases show the work.
        ax.hlines(y, ms(call["start"]), ms(call["end"]), color="#dddddd", lw=1, zorder=1)
        for span in phases[index]:
            x0, x1 = ms(span["start"]), ms(span["end"])
            ax.barh(
                y,
                max(x1 - x0, 0.02),
                left=x0,
                height=0.55,
                color=COLORS[span["name"]],
                zorder=2,
            )

    labels = []
    for index in order:
        args = calls[index]["args"]
        batch = args.get("batch")
        where = f"batch {batch}" if batch is not None else "refused"
        labels.append(f"#{index} {args.get('name', '?')} ({where})")
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_ylim(len(order) - 0.4, -1.0)
    ax.set_xlabel("ms since the turn started")
    ax.set_title("One model turn through the executor (demo --trace)", fontsize=11)
    ax.grid(axis="x", color="#eeeeee", zorder=0)
    ax.set_axisbelow(True)
    handles = [Patch(color=COLORS[p], label=p) for p in PHASES]
    handles += [Patch(color=c, label=f"{m.lower()} batch") for m, c in BATCH_COLORS.items()]
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.09),
        ncol=len(handles),
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout()
    fig.savefig(out)


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} TRACE.json OUT.png", file=sys.stderr)
        return 2
    trace, out = argv[1], argv[2]
    try:
        with open(trace, encoding="utf-8") as file:
            events = json.load(file)
        if isinstance(events, dict):
            events = events.get("traceEvents", [])
        calls, phases, batches, origin = turn(spans(events))
    except (OSError, ValueError, TraceError) as err:
        print(f"error: {trace}: {err}", file=sys.stderr)
        return 1
    draw(calls, phases, batches, origin, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
