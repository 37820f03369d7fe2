#!/usr/bin/env python3
"""Rebuilds catalogs_a.json (held-out catalogs, part A) from pinned mirrors.

Each catalog keeps tool names and descriptions as the server publishes them
and records where they came from (repository, commit, paths). An
`input_schema` is kept only where the server writes it as a literal (a JSON
object in TypeScript or a dict in Python); schemas generated at run time
(zod, pydantic, schemars, mcp-go options) are left out.

Usage: extract_a.py [MIRROR_ROOT] > catalogs_a.json, where
MIRROR_ROOT/<owner>+<name>/repo is a bare git directory of each repository
(default /work/.mirror). Nothing here runs any server or any ranking; it only
reads source text. It documents the data and is not needed by the evaluation.

The servers that now live in modelcontextprotocol/servers-archived (slack,
postgres, sqlite, brave-search, puppeteer, gdrive, google-maps, redis,
gitlab, everart, aws-kb-retrieval-server) are read from
modelcontextprotocol/servers at ARCHIVE_PARENT, the last commit before
d53d6cc ("Archive unmaintained servers") removed them from that repository.
"""
import ast
import json
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"
SERVERS = "modelcontextprotocol/servers"
ARCHIVE_PARENT = "1f705677a930ec618b7a16d87d00cee7db747ff2"
ARCHIVE_NOTE = ("read from modelcontextprotocol/servers at the parent of d53d6cc "
                "(\"Archive unmaintained servers\"), the code that moved to "
                "modelcontextprotocol/servers-archived")


def git(repo, *args):
    return subprocess.run(["git", "-C", f"{ROOT}/{repo.replace('/', '+')}/repo", *args],
                          check=True, capture_output=True, text=True).stdout


def head(repo):
    return git(repo, "rev-parse", "HEAD").strip()


def show(repo, path, rev="HEAD"):
    return git(repo, "show", f"{rev}:{path}")


def ls(repo, prefix, rev="HEAD"):
    return git(repo, "ls-tree", "-r", "--name-only", rev, prefix).splitlines()


# --- JavaScript/TypeScript literals ------------------------------------------
class NotLiteral(Exception):
    pass


JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "`": "`", "\\": "\\", "/": "/"}


def skip_ws(text, i):
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if text.startswith("//", i):
            i = text.index("\n", i)
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        else:
            return i


def read_js_string(text, i):
    quote = text[i]
    i += 1
    buf = []
    while text[i] != quote:
        if text[i] == "\\":
            nxt = text[i + 1]
            buf.append(JS_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        if quote == "`" and text.startswith("${", i):
            raise NotLiteral("template interpolation")
        buf.append(text[i])
        i += 1
    return "".join(buf), i + 1


def read_js_string_expr(text, i):
    """Reads a `+`-joined run of string literals starting at text[i]."""
    parts = []
    while True:
        i = skip_ws(text, i)
        if text[i] not in "'\"`":
            if not parts:
                raise NotLiteral(text[i:i + 30])
            break
        s, i = read_js_string(text, i)
        parts.append(s)
        j = skip_ws(text, i)
        if text[j] == "+":
            i = j + 1
            continue
        break
    return "".join(parts), i


NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?")
IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def read_js_value(text, i):
    """Parses a literal JS value (object, array, string, number, bool, null)."""
    i = skip_ws(text, i)
    c = text[i]
    if c == "{":
        obj = {}
        i += 1
        while True:
            i = skip_ws(text, i)
            if text[i] == "}":
                return obj, i + 1
            if text[i] in "'\"":
                key, i = read_js_string(text, i)
            else:
                m = IDENT.match(text, i)
                if not m:
                    raise NotLiteral(text[i:i + 30])
                key, i = m.group(0), m.end()
            i = skip_ws(text, i)
            if text[i] != ":":
                raise NotLiteral(text[i:i + 30])
            obj[key], i = read_js_value(text, i + 1)
            i = skip_ws(text, i)
            if text[i] == ",":
                i += 1
    if c == "[":
        arr = []
        i += 1
        while True:
            i = skip_ws(text, i)
            if text[i] == "]":
                return arr, i + 1
            v, i = read_js_value(text, i)
            arr.append(v)
            i = skip_ws(text, i)
            if text[i] == ",":
                i += 1
    if c in "'\"`":
        return read_js_string_expr(text, i)
    m = NUMBER.match(text, i)
    if m:
        return (float(m.group(0)) if m.group(1) or m.group(2) else int(m.group(0))), m.end()
    for word, value in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, i) and not text[i + len(word)].isalnum():
            return value, i + len(word)
    raise NotLiteral(text[i:i + 30])


TOOL_LITERAL = re.compile(r"\bname:\s*(['\"])([^'\"]+)\1\s*,\s*description:\s*")


def js_tool_literals(text):
    """`{ name: "x", description: <strings>, inputSchema: {...} }` objects."""
    out = []
    for m in TOOL_LITERAL.finditer(text):
        description, i = read_js_string_expr(text, m.end())
        schema = None
        i = skip_ws(text, i)
        if text[i] == ",":
            i = skip_ws(text, i + 1)
            if text.startswith("inputSchema:", i):
                try:
                    schema, _ = read_js_value(text, i + len("inputSchema:"))
                except NotLiteral:
                    schema = None
        out.append((m.group(2), description, schema))
    return out


def description_after(text, start):
    d = re.compile(r"\bdescription:\s*").search(text, start)
    return read_js_string_expr(text, d.end())[0]


# --- Python ------------------------------------------------------------------
def py_string(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise NotLiteral(ast.unparse(node))


def py_tool_calls(text, func_names=("Tool",)):
    """`Tool(name=..., description=..., inputSchema={...})` calls."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if fname not in func_names:
            continue
        kw = {k.arg: k.value for k in node.keywords}
        if "name" not in kw or "description" not in kw:
            continue
        schema = None
        if "inputSchema" in kw:
            try:
                schema = ast.literal_eval(kw["inputSchema"])
            except ValueError:
                schema = None
        out.append((node.lineno, py_string(kw["name"]), py_string(kw["description"]), schema))
    return [t[1:] for t in sorted(out)]


def decorated_functions(text, decorator_prefix, clean):
    """Functions under `@<decorator_prefix>...`; FastMCP names them by the
    function and describes them by its docstring (the MCP SDK's FastMCP
    publishes `fn.__doc__` as is; fastmcp 2.x publishes `inspect.getdoc`)."""
    out = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and any(
                ast.unparse(d).startswith(decorator_prefix) for d in node.decorator_list):
            out.append((node.name, ast.get_docstring(node, clean=clean) or "", None))
    return out


def docstrings(text, clean):
    return {node.name: ast.get_docstring(node, clean=clean) or ""
            for node in ast.parse(text).body
            if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)}


# --- catalogs ------------------------------------------------------------------
def catalog(server, repo, paths, tools, commit=None, note=None):
    seen = {}
    for name, description, schema in tools:
        if name in seen:
            continue
        entry = {"name": name, "description": description.strip()}
        if schema is not None:
            entry["input_schema"] = schema
        seen[name] = entry
    source = {"repo": repo, "commit": commit or head(repo), "paths": paths}
    if note:
        source["note"] = note
    return {"server": server, "source": source, "tools": list(seen.values())}


def archived_ts(server, path, region=None):
    text = show(SERVERS, path, ARCHIVE_PARENT)
    return catalog(server, SERVERS, [path], js_tool_literals(text), ARCHIVE_PARENT, ARCHIVE_NOTE)


def archived_gitlab():
    # inputSchema is zodToJsonSchema(...), so only names and descriptions.
    path = "src/gitlab/index.ts"
    return catalog("gitlab", SERVERS, [path], js_tool_literals(show(SERVERS, path, ARCHIVE_PARENT)),
                   ARCHIVE_PARENT, ARCHIVE_NOTE)


def archived_sqlite():
    path = "src/sqlite/src/mcp_server_sqlite/server.py"
    return catalog("sqlite", SERVERS, [path], py_tool_calls(show(SERVERS, path, ARCHIVE_PARENT)),
                   ARCHIVE_PARENT, ARCHIVE_NOTE)


def everything():
    """Current reference server: tools/*.ts, in the order tools/index.ts registers them."""
    index = show(SERVERS, "src/everything/tools/index.ts")
    imports = dict(re.findall(r"import \{ (\w+) \} from \"\./([\w-]+)\.js\";", index))
    order = re.findall(r"^\s+(register\w+Tool)\(server\);", index, re.M)
    tools, paths = [], []
    for fn in order:
        path = f"src/everything/tools/{imports[fn]}.ts"
        text = show(SERVERS, path)
        paths.append(path)
        m = re.search(r"^const name = \"([^\"]+)\";", text, re.M)
        if m:
            tools.append((m.group(1), description_after(text, text.index("const config", m.end())), None))
        else:  # registerToolTask("name", { title, description, ... })
            m = re.search(r"registerToolTask\(\s*\"([^\"]+)\"", text)
            tools.append((m.group(1), description_after(text, m.end()), None))
    return catalog("everything", SERVERS, paths, tools)


def redis_official():
    repo = "redis/mcp-redis"
    tools, paths = [], []
    for path in sorted(ls(repo, "src/tools")):
        if path.endswith("__init__.py"):
            continue
        paths.append(path)
        tools += decorated_functions(show(repo, path), "mcp.tool", clean=False)
    return catalog("redis_official", repo, paths, tools)


def qdrant():
    repo = "qdrant/mcp-server-qdrant"
    settings = show(repo, "src/mcp_server_qdrant/settings.py")
    consts = {}
    for node in ast.parse(settings).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            consts[node.targets[0].id] = node.value.value
    server = show(repo, "src/mcp_server_qdrant/mcp_server.py")
    names = re.findall(r"self\.tool\(\s*\w+,\s*name=\"([^\"]+)\",\s*description=self\.tool_settings\.(\w+),", server)
    tools = [(n, consts[f"DEFAULT_{field.upper()}"], None) for n, field in names]
    return catalog("qdrant", repo, ["src/mcp_server_qdrant/mcp_server.py", "src/mcp_server_qdrant/settings.py"], tools)


def chroma():
    repo = "chroma-core/chroma-mcp"
    path = "src/chroma_mcp/server.py"
    return catalog("chroma", repo, [path], decorated_functions(show(repo, path), "mcp.tool", clean=False))


def elasticsearch():
    repo = "elastic/mcp-server-elasticsearch"
    path = "src/servers/elasticsearch/base_tools.rs"
    text = show(repo, path)
    tools = [(fn, desc, None) for desc, fn in re.findall(
        r"#\[tool\(\s*description = \"((?:[^\"\\]|\\.)*)\".*?\)\]\s*(?:pub )?async fn (\w+)", text, re.S)]
    return catalog("elasticsearch", repo, [path], tools)


def tavily():
    repo = "tavily-ai/tavily-mcp"
    path = "src/index.ts"
    text = show(repo, path)
    start = text.index("setRequestHandler(ListToolsRequestSchema")
    end = text.index("setRequestHandler(CallToolRequestSchema", start)
    return catalog("tavily", repo, [path], js_tool_literals(text[start:end]))


def browserbase():
    repo = "browserbase/mcp-server-browserbase"
    # Order of TOOLS in src/tools/index.ts: ...sessionTools, navigate, act, observe, extract.
    paths = [f"src/tools/{f}.ts" for f in ("session", "navigate", "act", "observe", "extract")]
    tools = []
    for path in paths:
        tools += js_tool_literals(show(repo, path))  # inputSchema is zod: omitted
    return catalog("browserbase", repo, paths, [(n, d, None) for n, d, _ in tools])


def context7():
    repo = "upstash/context7"
    path = "packages/mcp/src/index.ts"
    text = show(repo, path)
    tools = [(m.group(1), description_after(text, m.end()), None)
             for m in re.finditer(r"registerTool\(\s*\"([^\"]+)\"\s*,\s*\{", text)]
    return catalog("context7", repo, [path], tools)


def slack_community():
    repo = "korotovsky/slack-mcp-server"
    path = "pkg/server/server.go"
    text = show(repo, path)
    consts = dict(re.findall(r"^\s+(Tool\w+)\s*=\s*\"([^\"]+)\"", text, re.M))
    tools = []
    for m in re.finditer(r"mcp\.NewTool\((Tool\w+),\s*mcp\.WithDescription\(\"((?:[^\"\\]|\\.)*)\"\)", text):
        tools.append((consts[m.group(1)], json.loads(f"\"{m.group(2)}\""), None))
    return catalog("slack_community", repo, [path], tools)


def whatsapp():
    repo = "lharries/whatsapp-mcp"
    path = "whatsapp-mcp-server/main.py"
    return catalog("whatsapp", repo, [path], decorated_functions(show(repo, path), "mcp.tool", clean=False))


def clickhouse():
    """fastmcp 2.x `Tool.from_function(fn, name=..., description=...)` calls."""
    repo = "ClickHouse/mcp-clickhouse"
    path = "mcp_clickhouse/mcp_server.py"
    text = show(repo, path)
    docs = docstrings(text, clean=True)
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "Tool.from_function":
            fn = node.args[0].id
            kw = {k.arg: k.value for k in node.keywords}
            name = py_string(kw["name"]) if "name" in kw else fn
            desc = py_string(kw["description"]) if "description" in kw else docs[fn]
            found.append((node.lineno, name, desc))
    # The ClickHouse tools are registered at module level before the chDB one
    # (_register_chdb_tools() is called last), so list them in that order.
    chdb = [t for t in found if t[1] == "run_chdb_select_query"]
    rest = sorted(t for t in found if t[1] != "run_chdb_select_query")
    return catalog("clickhouse", repo, [path], [(n, d, None) for _, n, d in rest + chdb])


def arxiv():
    repo = "blazickjp/arxiv-mcp-server"
    server = show(repo, "src/arxiv_mcp_server/server.py")
    listed = re.search(r"async def list_tools\(\).*?return \[(.*?)\]", server, re.S).group(1)
    order = re.findall(r"(\w+_tool)", listed)
    by_var, paths = {}, []
    for path in sorted(ls(repo, "src/arxiv_mcp_server/tools")):
        text = show(repo, path)
        for node in ast.parse(text).body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and ast.unparse(node.value.func) == "types.Tool"):
                kw = {k.arg: k.value for k in node.value.keywords}
                try:
                    schema = ast.literal_eval(kw["inputSchema"])
                except ValueError:
                    schema = None
                by_var[node.targets[0].id] = (py_string(kw["name"]), py_string(kw["description"]), schema)
                if path not in paths:
                    paths.append(path)
    return catalog("arxiv", repo, ["src/arxiv_mcp_server/server.py"] + paths, [by_var[v] for v in order])


def markdownify():
    repo = "zcaceres/markdownify-mcp"
    path = "src/tools.ts"
    return catalog("markdownify", repo, [path], js_tool_literals(show(repo, path)))


catalogs = [
    archived_ts("slack", "src/slack/index.ts"),
    archived_ts("postgres", "src/postgres/index.ts"),
    archived_sqlite(),
    archived_ts("brave_search", "src/brave-search/index.ts"),
    archived_ts("puppeteer", "src/puppeteer/index.ts"),
    archived_ts("gdrive", "src/gdrive/index.ts"),
    archived_ts("google_maps", "src/google-maps/index.ts"),
    archived_ts("redis", "src/redis/src/index.ts"),
    archived_gitlab(),
    archived_ts("everart", "src/everart/index.ts"),
    archived_ts("aws_kb_retrieval", "src/aws-kb-retrieval-server/index.ts"),
    everything(),
    redis_official(),
    qdrant(),
    chroma(),
    elasticsearch(),
    tavily(),
    browserbase(),
    context7(),
    slack_community(),
    whatsapp(),
    clickhouse(),
    arxiv(),
    markdownify(),
]
json.dump({"catalogs": catalogs}, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
