#!/usr/bin/env python3
"""Check provider wire JSON against the official Anthropic and OpenAI SDK types.

Usage: validate_provider.py [--lenient-response] FILE...

Each FILE holds one JSON object; every key is optional (but `format` is
needed as soon as any other key is there), and no other key is allowed:

    {
      "format":   "anthropic" | "openai-chat" | "openai-responses",
      "tools":    [ ...tool definitions, as sent in the request's `tools`... ],
      "next":     [ ...what the next request carries after a tool call... ],
      "response": { ...one non-streaming provider response... },
      "stream":   [ ...streaming events, each as its decoded `data:` JSON... ]
    }

What each part is checked against, per format:

    anthropic         tools    ToolParam | ToolSearchToolBm25_20251119Param
                               | ToolSearchToolRegex20251119Param
                               | CodeExecutionTool20260120Param
                      next     content blocks of the user message:
                               ToolResultBlockParam | TextBlockParam
                               | ImageBlockParam | DocumentBlockParam
                               | SearchResultBlockParam
                      response anthropic.types.Message
                      stream   anthropic.types.RawMessageStreamEvent
    openai-chat       tools    ChatCompletionFunctionToolParam
                      next     ChatCompletionMessageParam (tool, user, the
                               assistant message that carried tool_calls, ...)
                      response openai.types.chat.ChatCompletion
                      stream   openai.types.chat.ChatCompletionChunk
    openai-responses  tools    FunctionToolParam | ToolSearchToolParam
                               | NamespaceToolParam | ProgrammaticToolCalling
                      next     ResponseInputItemParam (function_call_output,
                               tool_search_output, function_call,
                               tool_search_call, message, ...)
                      response openai.types.responses.Response
                      stream   openai.types.responses.ResponseStreamEvent

Namespaces (openai-responses): the types cannot see that a call names a
tool the request declared, so this script also checks it. In `tools`, each
`namespace` name is declared once and each function name once inside its
namespace; every `function_call` that carries a `namespace` (in `response`,
in `next`, in `stream` items) must name a declared namespace and a function
inside it, declared in `tools` or loaded by a `tool_search_output` in
`next`. (A call without a namespace is not checked: a client may answer a
name it does not offer with an error result.) Skipped when the file has
no `tools`.

Unknown keys are errors. Pydantic ignores extra keys in a TypedDict unless
the TypedDict is configured with extra='forbid', and the SDKs' response
models accept extra keys on purpose, so a misspelled optional key
(`defer_loadng`, `is_eror`) would pass a plain TypeAdapter. This script
therefore rebuilds every type it checks against: each SDK TypedDict (and,
for responses and stream events, each SDK model) becomes a fresh TypedDict
with the same keys, the same required keys and converted value types, with
`__pydantic_config__ = ConfigDict(extra='forbid')`, applied all the way
down. (TypedDicts the SDK itself marks extra='allow', i.e. JSON Schema
objects, stay open.) `Iterable[...]` and `Sequence[...]` become `List[...]`,
because pydantic validates an Iterable lazily and would never look inside
it. Each union becomes a callable-discriminated union that picks the member
whose literal fields (`type`, `role`, ...) match and that validates, so an
error names one member, not every member of a 30-way union. Values are
validated with strict=True (no "1" -> 1, no 1 -> true). Responses and
stream events are then also parsed with the SDK's own `model_validate`.
With --lenient-response, shape errors in `response`/`stream` that the SDK
model itself accepts (typically keys newer than the SDK) are warnings.

Prints `ok FILE (N tools, M items)` per file. On the first failure it
prints the file, the part and item index, and pydantic's errors, and exits
with status 1 (status 2 for unreadable input or bad usage).

Needs only the `anthropic` and `openai` SDKs and pydantic v2, e.g.

    python3 -m venv /tmp/provsdk
    /tmp/provsdk/bin/pip install anthropic openai
    /tmp/provsdk/bin/python scripts/validate_provider.py sample.json
"""

import json
import sys
import types as pytypes
import typing
from typing import Any, Dict, List, Literal, Optional, Union

import pydantic
import typing_extensions
from pydantic import ConfigDict, Discriminator, Tag, TypeAdapter, ValidationError

import anthropic.types as at
import openai.types.chat as oc
import openai.types.responses as orr

# --------------------------------------------------------------------------
# Rebuilding SDK types into closed (extra='forbid') TypedDicts
# --------------------------------------------------------------------------

def _qualifiers(name):
    return {getattr(m, name) for m in (typing, typing_extensions) if hasattr(m, name)}


_REQUIRED = _qualifiers("Required")
_NOT_REQUIRED = _qualifiers("NotRequired")
_REQ_WRAPPERS = _REQUIRED | _NOT_REQUIRED | _qualifiers("ReadOnly")

_converted: Dict[Any, Any] = {}  # SDK class -> its rebuilt TypedDict
_building: set = set()
_adapters: Dict[int, TypeAdapter] = {}
_generated_names: Dict[str, int] = {}


def _is_typeddict(tp) -> bool:
    return isinstance(tp, type) and typing_extensions.is_typeddict(tp)


def _is_model(tp) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _strip_req(tp):
    while typing_extensions.get_origin(tp) in _REQ_WRAPPERS:
        tp = typing_extensions.get_args(tp)[0]
    return tp


def _unique_name(base: str) -> str:
    n = _generated_names.get(base, 0)
    _generated_names[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _new_typeddict(name: str, fields: Dict[str, Any], required: set, config: dict):
    annotations = {
        key: (typing_extensions.Required[tp] if key in required else typing_extensions.NotRequired[tp])
        for key, tp in fields.items()
    }
    td = typing_extensions.TypedDict(name, annotations, total=False)
    td.__module__ = __name__
    td.__pydantic_config__ = ConfigDict(**config)
    return td


def _td_fields(src):
    """(fields, required keys, config) of an SDK TypedDict or model, keyed by wire name."""
    if _is_typeddict(src):
        # The SDK modules use `from __future__ import annotations`, so at class
        # creation Required[...] was still a string and `__required_keys__` is
        # empty for total=False TypedDicts; read the qualifiers off the resolved
        # hints instead, as pydantic does.
        hints = typing.get_type_hints(src, include_extras=True)
        fields, required = {}, set()
        total = getattr(src, "__total__", True)
        for key, hint in hints.items():
            origin = typing_extensions.get_origin(hint)
            if origin in _REQUIRED or (total and origin not in _NOT_REQUIRED):
                required.add(key)
            fields[key] = _strip_req(hint)
        config = dict(getattr(src, "__pydantic_config__", None) or {})
        config.pop("arbitrary_types_allowed", None)  # file-object members are dropped below
        if config.get("extra") != "allow":
            config["extra"] = "forbid"
        return fields, required, config
    fields, required = {}, set()
    for name, info in src.model_fields.items():
        key = info.alias or name
        fields[key] = info.annotation
        if info.is_required():
            required.add(key)
    return fields, required, {"extra": "forbid"}


def _convert_class(src):
    if src in _converted:
        return _converted[src]
    if src in _building:
        # None of the checked SDK types is recursive (this SDK version); say so if one becomes so.
        raise RuntimeError(f"recursive SDK type {src.__module__}.{src.__qualname__} is not supported")
    _building.add(src)
    name = _unique_name(f"Closed{src.__name__}")
    fields, required, config = _td_fields(src)
    fields = {k: convert(v) for k, v in fields.items()}
    td = _new_typeddict(name, fields, required, config)
    td.__sdk_type__ = src
    td.__sdk_fields__ = (fields, required)
    _building.discard(src)
    _converted[src] = td
    return td


def _kinds(tp) -> set:
    """JSON kinds ('dict', 'list', 'str', 'int', 'float', 'bool', 'null') a converted type accepts."""
    tp = _strip_req(tp)
    origin = typing_extensions.get_origin(tp)
    if tp is Any or tp is object:
        return {"dict", "list", "str", "int", "float", "bool", "null"}
    if _is_typeddict(tp):
        return {"dict"}
    if origin is typing_extensions.Annotated:
        return _kinds(typing_extensions.get_args(tp)[0])
    if origin in (Union, getattr(pytypes, "UnionType", Union)):
        out = set()
        for a in typing_extensions.get_args(tp):
            out |= _kinds(a)
        return out
    if origin in (Literal, typing_extensions.Literal):
        return {_kind_of(v) for v in typing_extensions.get_args(tp)}
    if origin in (list, List) or tp is list:
        return {"list"}
    if origin in (dict, Dict) or tp is dict:
        return {"dict"}
    if tp is type(None):
        return {"null"}
    if tp is str:
        return {"str"}
    if tp is bool:
        return {"bool"}
    if tp is int:
        return {"int"}
    if tp is float:
        return {"int", "float"}
    return set()  # file objects, paths, ...: never JSON


def _kind_of(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__


def _literal_values(tp):
    """The allowed values if `tp` is a (possibly Optional) Literal, else None."""
    tp = _strip_req(tp)
    origin = typing_extensions.get_origin(tp)
    if origin is typing_extensions.Annotated:
        return _literal_values(typing_extensions.get_args(tp)[0])
    if origin in (Literal, typing_extensions.Literal):
        return set(typing_extensions.get_args(tp))
    if origin in (Union, getattr(pytypes, "UnionType", Union)):
        vals = set()
        for a in typing_extensions.get_args(tp):
            if a is type(None):
                vals.add(None)
                continue
            v = _literal_values(a)
            if v is None:
                return None
            vals |= v
        return vals
    return None


_PRIMARY_KEYS = ("type", "role")  # the keys SDK unions are told apart by


def _shape_score(td, value: dict):
    """(type/role mismatches, other literal mismatches, unknown + missing keys): lower matches better."""
    fields, required = td.__sdk_fields__
    primary = other = 0
    for key, tp in fields.items():
        allowed = _literal_values(tp)
        if allowed is None:
            continue
        if key in value:
            v = value[key]
            bad = isinstance(v, (dict, list)) or v not in allowed
        else:
            bad = key in required
        if bad:
            if key in _PRIMARY_KEYS:
                primary += 1
            else:
                other += 1
    # A `type`/`role` the input has but the member lacks counts against the member too.
    primary += sum(1 for k in _PRIMARY_KEYS if k in value and k not in fields)
    unknown = sum(1 for k in value if k not in fields)
    missing = sum(1 for k in required if k not in value)
    return (primary, other, unknown + missing)


def _adapter(tp) -> TypeAdapter:
    key = id(tp)
    if key not in _adapters:
        _adapters[key] = TypeAdapter(tp)
    return _adapters[key]


def _member_label(tp, taken: set) -> str:
    if _is_typeddict(tp) and hasattr(tp, "__sdk_type__"):
        label = tp.__sdk_type__.__name__
    else:
        label = getattr(tp, "__name__", None) or repr(tp).replace("typing.", "")
    label = label[:60]
    base, n = label, 1
    while label in taken:
        n += 1
        label = f"{base}#{n}"
    taken.add(label)
    return label


def _closed_union(members):
    """A union whose member is chosen by the input's shape, so errors name one member."""
    taken: set = set()
    labelled = [(_member_label(m, taken), m) for m in members]
    everything = Union[tuple(m for _, m in labelled)]  # fallback: pydantic's smart union of all
    by_label = dict(labelled)

    def choose(value):
        kind = _kind_of(value)
        candidates = [(label, m) for label, m in labelled if kind in _kinds(m)]
        if not candidates:
            return "any-member"
        if len(candidates) == 1:
            return candidates[0][0]
        if kind == "dict":
            def rank(item):
                label, m = item
                if _is_typeddict(m):
                    return _shape_score(m, value)
                return (0, 0, 10**6)  # an open Dict[str, ...]: a last resort
            candidates.sort(key=rank)
        for label, m in candidates:
            try:
                _adapter(by_label[label]).validate_python(value, strict=True)
                return label
            except ValidationError:
                continue
        return candidates[0][0]  # the best-shaped member; its errors are the useful ones

    tagged = [typing_extensions.Annotated[m, Tag(label)] for label, m in labelled]
    tagged.append(typing_extensions.Annotated[everything, Tag("any-member")])
    return typing_extensions.Annotated[Union[tuple(tagged)], Discriminator(choose)]


def convert(tp):
    """The closed, strict equivalent of an SDK annotation."""
    tp = _strip_req(tp)
    if tp is Any or tp is object:
        return Any
    if _is_typeddict(tp) or _is_model(tp):
        return _convert_class(tp)
    origin = typing_extensions.get_origin(tp)
    args = typing_extensions.get_args(tp)
    if origin is typing_extensions.Annotated:
        # SDK metadata (PropertyInfo, UnionDiscriminator) means nothing to pydantic here.
        return convert(args[0])
    if origin in (Union, getattr(pytypes, "UnionType", Union)):
        nullable = type(None) in args
        members = []
        for a in args:
            if a is type(None):
                continue
            c = convert(a)
            if _kinds(c):  # drop members no JSON value can be (file objects)
                members.append(c)
        if not members:
            inner = None
        elif len(members) == 1:
            inner = members[0]
        else:
            inner = _closed_union(members)
        if inner is None:
            return type(None)
        return Optional[inner] if nullable else inner
    if origin in (Literal, typing_extensions.Literal):
        return tp
    if origin is not None:
        import collections.abc as cabc

        if origin in (list, tuple, set, frozenset, cabc.Iterable, cabc.Sequence, cabc.MutableSequence,
                      cabc.Collection, cabc.Iterator):
            return List[convert(args[0])] if args else List[Any]
        if origin in (dict, cabc.Mapping, cabc.MutableMapping):
            return Dict[convert(args[0]), convert(args[1])] if args else Dict[str, Any]
        if isinstance(origin, type) and getattr(origin, "_is_protocol", False) and args:
            return List[convert(args[0])]  # SequenceNotStr[...] when typing-only stubs are live
    return tp


def closed(*sdk_types):
    """A TypeAdapter for the closed union of the given SDK types (or the one type)."""
    tp = convert(Union[sdk_types] if len(sdk_types) > 1 else sdk_types[0])
    return TypeAdapter(tp)


# --------------------------------------------------------------------------
# What each format's parts are checked against
# --------------------------------------------------------------------------

FORMATS = {
    "anthropic": {
        "tools": (at.ToolParam, at.ToolSearchToolBm25_20251119Param, at.ToolSearchToolRegex20251119Param,
                  at.CodeExecutionTool20260120Param),
        "next": (at.ToolResultBlockParam, at.TextBlockParam, at.ImageBlockParam, at.DocumentBlockParam,
                 at.SearchResultBlockParam),
        "response": at.Message,
        "stream": at.RawMessageStreamEvent,
    },
    "openai-chat": {
        "tools": (oc.ChatCompletionFunctionToolParam,),
        "next": (oc.ChatCompletionMessageParam,),
        "response": oc.ChatCompletion,
        "stream": oc.ChatCompletionChunk,
    },
    "openai-responses": {
        "tools": (orr.FunctionToolParam, orr.ToolSearchToolParam, orr.NamespaceToolParam,
                  orr.tool_param.ProgrammaticToolCalling),
        "next": (orr.ResponseInputItemParam,),
        "response": orr.Response,
        "stream": orr.ResponseStreamEvent,
    },
}

_part_checkers: Dict[tuple, Any] = {}


def _sdk_validator(tp):
    """The SDK's own parser: Model.model_validate, or a TypeAdapter for an event union."""
    if _is_model(tp):
        return tp.model_validate
    return TypeAdapter(tp).validate_python


def checker(fmt: str, part: str):
    """Built on first use: the closed adapter, plus the SDK parser for response/stream."""
    key = (fmt, part)
    if key not in _part_checkers:
        spec = FORMATS[fmt][part]
        if part in ("tools", "next"):
            _part_checkers[key] = closed(*spec)
        else:
            _part_checkers[key] = (closed(spec), _sdk_validator(spec))
    return _part_checkers[key]


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


class Failure(Exception):
    """A file that does not match the SDK types (exit status 1)."""


class Unreadable(Exception):
    """A file that is not readable JSON (exit status 2)."""


def _short(value, limit=120) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _format_errors(err: ValidationError, limit=12) -> str:
    errors = err.errors(include_url=False)
    lines = [f"{len(errors)} validation error(s) (pydantic):"]
    for e in errors[:limit]:
        loc = ".".join(str(p) for p in e["loc"]) or "(item)"
        lines.append(f"  {loc}: {e['msg']} [type={e['type']}, input={_short(e.get('input'))}]")
    if len(errors) > limit:
        lines.append(f"  ... and {len(errors) - limit} more")
    return "\n".join(lines)


def check_file(path: str, lenient_response: bool):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise Unreadable(f"{path}: cannot read JSON: {e}") from None
    if not isinstance(doc, dict):
        raise Failure(f"{path}: top level must be a JSON object, got {_kind_of(doc)}")
    unknown = sorted(set(doc) - {"format", "tools", "next", "response", "stream"})
    if unknown:
        raise Failure(f"{path}: unknown top-level key(s) {unknown}; "
                      "expected format, tools, next, response, stream")
    if "format" not in doc and len(doc) == 0:
        print(f"ok {path} (0 tools, 0 items)")
        return
    fmt = doc.get("format")
    if fmt not in FORMATS:
        raise Failure(f"{path}: \"format\" must be one of {sorted(FORMATS)}, got {_short(fmt)}")

    counts = {}
    for part in ("tools", "next", "stream"):
        items = doc.get(part, [])
        if not isinstance(items, list):
            raise Failure(f"{path}: \"{part}\" must be a JSON array, got {_kind_of(items)}")
        counts[part] = len(items)
        for i, item in enumerate(items):
            where = f"{path}: {part}[{i}]"
            if part == "stream":
                _check_model(where, item, *checker(fmt, "stream"), lenient_response)
                continue
            try:
                checker(fmt, part).validate_python(item, strict=True)
            except ValidationError as e:
                raise Failure(f"{where} ({fmt} {part}): {_format_errors(e)}") from None

    if "response" in doc:
        if not isinstance(doc["response"], dict):
            raise Failure(f"{path}: \"response\" must be a JSON object")
        _check_model(f"{path}: response", doc["response"], *checker(fmt, "response"), lenient_response)

    if fmt == "openai-responses" and "tools" in doc:
        _check_namespaced_calls(path, doc)

    print(f"ok {path} ({counts['tools']} tools, {counts['next']} items)")


def _check_model(where, value, closed_adapter, sdk_validate, lenient):
    """A response or stream event: the SDK's own model_validate, and the closed shape."""
    sdk_error = closed_error = None
    try:
        sdk_validate(value)  # Model.model_validate, or the SDK's event union
    except ValidationError as e:
        sdk_error = e
    try:
        closed_adapter.validate_python(value, strict=True)
    except ValidationError as e:
        closed_error = e
    if sdk_error is not None:
        if closed_error is not None:
            # Same failure; the closed union's errors name one member, not all of them.
            raise Failure(f"{where} (rejected by SDK model_validate; closed-shape errors shown): "
                          f"{_format_errors(closed_error)}") from None
        raise Failure(f"{where} (SDK model_validate): {_format_errors(sdk_error)}") from None
    if closed_error is not None:
        message = (f"{where} (SDK model_validate accepts it, closed shape does not: "
                   f"unknown key or strict type): {_format_errors(closed_error)}")
        if not lenient:
            raise Failure(message) from None
        print(f"warning: {message}", file=sys.stderr)


def _namespace_functions(where, namespace, declared):
    """Adds a namespace tool's function names to `declared` (name -> set)."""
    functions = declared.setdefault(namespace.get("name"), set())
    seen = set()
    for i, tool in enumerate(namespace.get("tools") or []):
        name = tool.get("name") if isinstance(tool, dict) else None
        if name in seen:
            raise Failure(f"{where}.tools[{i}]: function {_short(name)} declared twice in namespace "
                          f"{_short(namespace.get('name'))}")
        seen.add(name)
        functions.add(name)


def _check_namespaced_calls(path, doc):
    """Namespaces declared once, and every namespaced function_call names a declared function."""
    declared: Dict[Any, set] = {}
    for i, tool in enumerate(doc.get("tools", [])):
        if isinstance(tool, dict) and tool.get("type") == "namespace":
            if tool.get("name") in declared:
                raise Failure(f"{path}: tools[{i}]: namespace {_short(tool.get('name'))} declared twice")
            _namespace_functions(f"{path}: tools[{i}]", tool, declared)
    next_items = doc.get("next", [])
    for i, item in enumerate(next_items):
        if isinstance(item, dict) and item.get("type") == "tool_search_output":
            for j, tool in enumerate(item.get("tools") or []):
                if isinstance(tool, dict) and tool.get("type") == "namespace":
                    # Loaded into a namespace the request may declare already:
                    # checked on its own, then added to what is declared.
                    loaded: Dict[Any, set] = {}
                    _namespace_functions(f"{path}: next[{i}].tools[{j}]", tool, loaded)
                    for name, functions in loaded.items():
                        declared.setdefault(name, set()).update(functions)

    calls = []
    response = doc.get("response")
    if isinstance(response, dict):
        calls += [(f"response.output[{i}]", item) for i, item in enumerate(response.get("output") or [])]
    calls += [(f"next[{i}]", item) for i, item in enumerate(next_items)]
    for i, event in enumerate(doc.get("stream", [])):
        if isinstance(event, dict) and isinstance(event.get("item"), dict):
            calls.append((f"stream[{i}].item", event["item"]))
    for where, item in calls:
        if not isinstance(item, dict) or item.get("type") != "function_call":
            continue
        namespace = item.get("namespace")
        if namespace is None:
            continue
        if namespace not in declared:
            raise Failure(f"{path}: {where}: function_call {_short(item.get('name'))} names namespace "
                          f"{_short(namespace)}, which no namespace in `tools` (or a tool_search_output "
                          f"in `next`) declares; declared: {sorted(map(str, declared))}")
        if item.get("name") not in declared[namespace]:
            raise Failure(f"{path}: {where}: function_call {_short(item.get('name'))} is not a function of "
                          f"namespace {_short(namespace)}; it has {sorted(map(str, declared[namespace]))}")


def main(argv):
    args = [a for a in argv if a != "--lenient-response"]
    lenient = len(args) != len(argv)
    if not args or any(a in ("-h", "--help") for a in args) or any(a.startswith("--") for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    for path in args:
        try:
            check_file(path, lenient)
        except Failure as e:
            print(f"FAIL {e}", file=sys.stderr)
            return 1
        except Unreadable as e:
            print(f"ERROR {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
