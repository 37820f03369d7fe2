#!/usr/bin/env python3
"""Rebuilds catalogs_b.json (held-out tool catalogs, part b) from mirrors of
public MCP server repositories.

Each catalog keeps the tool names and descriptions exactly as the server
publishes them (surrounding whitespace stripped, as in catalogs.json), and
records where they came from (repository, HEAD commit, paths). Where the
repository holds the JSON input schema verbatim (a tools/list snapshot, or a
plain object literal), it is kept as `input_schema`; otherwise it is omitted.

Usage: extract_b.py [MIRROR_ROOT] > catalogs_b.json, where
MIRROR_ROOT/<owner>+<name>/repo is a bare git directory of each repository
(default /work/.mirror). Nothing here is needed to run the evaluation; it
documents the data. It only reads source text: no fetched code is run.

Descriptions built at run time from source expressions (string concatenation,
template literals, fmt.Sprintf, small description helper functions) are
evaluated by the tiny JS/Go expression readers below, with the server's
default configuration (no optional context set, write tools enabled).
"""
import json
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"


def git(repo, *args):
    return subprocess.run(["git", "-C", f"{ROOT}/{repo.replace('/', '+')}/repo", *args],
                          check=True, capture_output=True, text=True).stdout


def head(repo):
    return git(repo, "rev-parse", "HEAD").strip()


def show(repo, path):
    return git(repo, "show", f"HEAD:{path}")


def ls(repo, prefix=""):
    args = ["ls-tree", "-r", "--name-only", "HEAD"] + ([prefix] if prefix else [])
    return git(repo, *args).splitlines()


class ParseError(Exception):
    pass


def catalog(server, repo, paths, tools, prefer=None):
    """tools: (name, description[, input_schema]); duplicate names keep the first."""
    seen = {}
    for t in tools:
        name, desc = t[0], t[1]
        if not isinstance(name, str) or not re.fullmatch(r"[\w.-]{1,64}", name):
            raise ParseError(f"{server}: bad tool name {name!r}")
        if not isinstance(desc, str) or not desc.strip():
            raise ParseError(f"{server}: no description for {name}")
        if name in seen:
            continue
        entry = {"name": name, "description": desc.strip()}
        if len(t) > 2 and t[2] is not None:
            entry["input_schema"] = t[2]
        seen[name] = entry
    return {
        "server": server,
        "source": {"repo": repo, "commit": head(repo), "paths": paths},
        "tools": list(seen.values()),
    }


# =========================================================================
# A small reader for JavaScript/TypeScript expressions: string, template and
# number literals, `+`, `? :`, `||`, `??`, object and array literals, member
# access, `.trim()`/`.join()`, `as`/`satisfies` casts, and calls of
# top-level arrow functions whose body is an expression or a block of
# `const x = ...;` and `return ...;`. Unknown identifiers are undefined
# (None); concatenating undefined into a string is an error, so a wrongly
# read description fails loudly instead of printing "None".
# =========================================================================
UNPARSED = object()


def js_truthy(v):
    return not (v is None or v is False or v == "" or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0))


def js_str(v):
    if v is None or v is UNPARSED:
        raise ParseError("undefined value in a string")
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (int, float, str)):
        return str(v)
    raise ParseError(f"cannot stringify {type(v)}")


class JSFunction:
    def __init__(self, js, params, body):
        self.js, self.params, self.body = js, params, body

    def call(self, args):
        env = dict(zip(self.params, args))
        i = self.js.ws(self.body)
        if self.js.t[i] == "{":
            return self.js.block(i + 1, env)
        return self.js.expr(i, env)[0]


ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
       "'": "'", '"': '"', "`": "`", "\\": "\\", "$": "$", "\n": ""}


class JS:
    def __init__(self, text, extra=None):
        self.t = text
        self.extra = extra or {}
        self.decls = {}
        for m in re.finditer(r"^[ \t]*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]*)?=(?!=)\s*", text, re.M):
            self.decls.setdefault(m.group(1), m.end())
        self.cache = {}

    # -- scanning helpers ------------------------------------------------
    def ws(self, i):
        t = self.t
        while i < len(t):
            if t[i].isspace():
                i += 1
            elif t.startswith("//", i):
                j = t.find("\n", i)
                i = len(t) if j < 0 else j + 1
            elif t.startswith("/*", i):
                i = t.index("*/", i) + 2
            else:
                break
        return i

    def skip_string(self, i):
        t, q = self.t, self.t[i]
        i += 1
        while t[i] != q:
            if t[i] == "\\":
                i += 2
                continue
            if q == "`" and t.startswith("${", i):
                i = self.skip_balanced(i + 2, "}") + 1
                continue
            i += 1
        return i + 1

    def skip_balanced(self, i, stop=",)]}"):
        """Skips to the next top-level character in `stop` (not consumed)."""
        t, depth = self.t, 0
        while i < len(t):
            i = self.ws(i)
            c = t[i]
            if c in "'\"`":
                i = self.skip_string(i)
                continue
            if depth == 0 and c in stop:
                return i
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0:
                    return i
            i += 1
        raise ParseError("unbalanced")

    def ident(self, i):
        m = re.compile(r"[A-Za-z_$][\w$]*").match(self.t, i)
        return (m.group(0), m.end()) if m else (None, i)

    def skip_type(self, i):
        i = self.ws(i)
        while True:
            name, j = self.ident(i)
            if not name:
                raise ParseError("type expected")
            i = self.ws(j)
            if self.t[i] == "<":
                depth = 0
                while True:
                    if self.t[i] == "<":
                        depth += 1
                    elif self.t[i] == ">":
                        depth -= 1
                        if depth == 0:
                            break
                    i += 1
                i = self.ws(i + 1)
            while self.t.startswith("[]", i):
                i = self.ws(i + 2)
            if self.t[i] in ".|&" and not self.t.startswith("||", i) and not self.t.startswith("&&", i):
                i += 1
                continue
            return i

    # -- names --------------------------------------------------------------
    def lookup(self, name, env):
        if name in env:
            return env[name]
        if name in self.extra:
            return self.extra[name]
        if name in self.decls:
            if name not in self.cache:
                self.cache[name] = UNPARSED  # guards against cycles
                self.cache[name] = self.decl_value(self.decls[name])
            v = self.cache[name]
            return None if v is UNPARSED else v
        return None

    def decl_value(self, i):
        m = re.compile(r"(?:async\s+)?\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?::\s*[^=]+?)?\s*=>\s*").match(self.t, i)
        if m:
            params = [re.match(r"\s*([A-Za-z_$][\w$]*)", p).group(1) for p in self.split_params(m.group(1))]
            return JSFunction(self, params, m.end())
        try:
            return self.expr(i, {})[0]
        except (ParseError, IndexError, ValueError):
            return UNPARSED

    @staticmethod
    def split_params(s):
        out, depth, cur = [], 0, ""
        for c in s:
            if c in "([{<":
                depth += 1
            elif c in ")]}>":
                depth -= 1
            if c == "," and depth == 0:
                out.append(cur)
                cur = ""
            else:
                cur += c
        if cur.strip():
            out.append(cur)
        return [p for p in out if p.strip()]

    # -- statements (function bodies) -----------------------------------------
    def block(self, i, env):
        env = dict(env)
        while True:
            i = self.ws(i)
            m = re.compile(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]*)?=\s*").match(self.t, i)
            if m:
                v, i = self.expr(m.end(), env)
                env[m.group(1)] = v
                i = self.ws(i)
                if self.t[i] == ";":
                    i += 1
                continue
            if self.t.startswith("return", i):
                return self.expr(i + 6, env)[0]
            raise ParseError(f"unsupported statement at {self.t[i:i + 40]!r}")

    # -- expressions ----------------------------------------------------------
    def expr(self, i, env):
        cond, i = self.logical(i, env)
        j = self.ws(i)
        if self.t[j] == "?" and self.t[j + 1] not in ".?":
            # Only the branch taken is evaluated; the other is skipped unread.
            if js_truthy(cond):
                a, k = self.expr(j + 1, env)
                k = self.ws(k)
            else:
                a, k = None, self.skip_balanced(j + 1, ":,)]};")
            if self.t[k] != ":":
                raise ParseError("':' expected")
            if js_truthy(cond):
                return a, self.skip_balanced(k + 1, ",)]};")
            return self.expr(k + 1, env)
        return cond, i

    def logical(self, i, env):
        v, i = self.additive(i, env)
        while True:
            j = self.ws(i)
            if self.t.startswith("||", j):
                w, i = self.additive(j + 2, env)
                v = v if js_truthy(v) else w
            elif self.t.startswith("??", j):
                w, i = self.additive(j + 2, env)
                v = w if v is None else v
            elif self.t.startswith("&&", j):
                w, i = self.additive(j + 2, env)
                v = w if js_truthy(v) else v
            else:
                return v, i

    def additive(self, i, env):
        v, i = self.postfix(i, env)
        while True:
            j = self.ws(i)
            if self.t[j] == "+" and self.t[j + 1] not in "+=":
                w, i = self.postfix(j + 1, env)
                if isinstance(v, (int, float)) and isinstance(w, (int, float)) and not isinstance(v, bool):
                    v = v + w
                else:
                    v = js_str(v) + js_str(w)
            else:
                return v, i

    def postfix(self, i, env):
        v, i = self.primary(i, env)
        while True:
            j = self.ws(i)
            t = self.t
            if t.startswith("?.", j) or (t[j] == "." and not t.startswith("...", j)):
                name, k = self.ident(self.ws(j + (2 if t[j] == "?" else 1)))
                if not name:
                    raise ParseError("member name expected")
                k2 = self.ws(k)
                if t[k2] == "(":
                    args, k = self.args(k2 + 1, env)
                    v = self.method(v, name, args)
                else:
                    v = v.get(name) if isinstance(v, dict) else None
                    k = k
                i = k
            elif t[j] == "[" and isinstance(v, (dict, list)):
                key, k = self.expr(j + 1, env)
                k = self.ws(k)
                i = k + 1
                v = v.get(key) if isinstance(v, dict) else v[int(key)]
            elif t[j] == "(":
                args, i = self.args(j + 1, env)
                if isinstance(v, JSFunction):
                    v = v.call(args)
                elif callable(v):
                    v = v(*args)
                else:
                    raise ParseError("call of an unknown function")
            elif re.compile(r"(as|satisfies)\b").match(t, j):
                k = j + (2 if t.startswith("as", j) else 9)
                k = self.ws(k)
                if t.startswith("const", k):
                    i = k + 5
                else:
                    i = self.skip_type(k)
            elif t[j] == "!" and t[j + 1] != "=":
                i = j + 1
            else:
                return v, i

    def method(self, v, name, args):
        if isinstance(v, dict) and callable(v.get(name)):
            return v[name](*args)
        if isinstance(v, str) and name == "trim":
            return v.strip()
        if isinstance(v, str) and name == "trimStart":
            return v.lstrip()
        if isinstance(v, list) and name == "join":
            sep = args[0] if args else ","
            return sep.join(js_str(x) for x in v)
        if isinstance(v, str) and name == "replace" and len(args) == 2 and isinstance(args[0], str):
            return v.replace(args[0], args[1], 1)
        raise ParseError(f"unsupported method {name}")

    def args(self, i, env):
        out = []
        while True:
            i = self.ws(i)
            if self.t[i] == ")":
                return out, i + 1
            v, i = self.expr(i, env)
            out.append(v)
            i = self.ws(i)
            if self.t[i] == ",":
                i += 1

    def primary(self, i, env):
        i = self.ws(i)
        t = self.t
        c = t[i]
        if c in "'\"":
            return self.string(i)
        if c == "`":
            return self.template(i, env)
        if c == "(":
            v, i = self.expr(i + 1, env)
            i = self.ws(i)
            if t[i] != ")":
                raise ParseError("')' expected")
            return v, i + 1
        if c == "{":
            return self.obj(i + 1, env)
        if c == "[":
            return self.arr(i + 1, env)
        m = re.compile(r"-?(\d+\.?\d*(?:e[+-]?\d+)?)").match(t, i)
        if m and (c.isdigit() or c == "-"):
            s = m.group(0).replace("_", "")
            return (float(s) if any(x in s for x in ".e") else int(s)), m.end()
        name, j = self.ident(i)
        if not name:
            raise ParseError(f"unexpected {t[i:i + 30]!r}")
        if name in ("new", "function", "async", "await", "typeof"):
            raise ParseError(f"unsupported {name}")
        consts = {"true": True, "false": False, "null": None, "undefined": None}
        if name in consts:
            return consts[name], j
        if name == "this":
            return None, j
        k = self.ws(j)
        if t.startswith("=>", k):
            raise ParseError("arrow function")
        return self.lookup(name, env), j

    def string(self, i):
        q, t = self.t[i], self.t
        i += 1
        buf = []
        while t[i] != q:
            if t[i] == "\\":
                i = self.escape(i, buf)
                continue
            buf.append(t[i])
            i += 1
        return "".join(buf), i + 1

    def escape(self, i, buf):
        t = self.t
        n = t[i + 1]
        if n == "u":
            if t[i + 2] == "{":
                j = t.index("}", i)
                buf.append(chr(int(t[i + 3:j], 16)))
                return j + 1
            buf.append(chr(int(t[i + 2:i + 6], 16)))
            return i + 6
        if n == "x":
            buf.append(chr(int(t[i + 2:i + 4], 16)))
            return i + 4
        buf.append(ESC.get(n, n))
        return i + 2

    def template(self, i, env):
        t = self.t
        i += 1
        buf = []
        while t[i] != "`":
            if t[i] == "\\":
                i = self.escape(i, buf)
                continue
            if t.startswith("${", i):
                v, i = self.expr(i + 2, env)
                i = self.ws(i)
                if t[i] != "}":
                    raise ParseError("'}' expected in template")
                buf.append(js_str(v))
                i += 1
                continue
            buf.append(t[i])
            i += 1
        return "".join(buf), i + 1

    def value_or_skip(self, i, env):
        try:
            v, j = self.expr(i, env)
            k = self.ws(j)
            if self.t[k] in ",}]":
                return v, j
        except (ParseError, IndexError, ValueError, KeyError):
            pass
        return UNPARSED, self.skip_balanced(i)

    def obj(self, i, env):
        out = {}
        t = self.t
        while True:
            i = self.ws(i)
            if t[i] == "}":
                return out, i + 1
            if t.startswith("...", i):
                v, i = self.value_or_skip(i + 3, env)
                if isinstance(v, dict):
                    out.update(v)
                else:
                    out["..."] = UNPARSED
            else:
                if t[i] in "'\"":
                    key, i = self.string(i)
                elif t[i] == "[":
                    key, i = self.expr(i + 1, env)
                    i = self.ws(i) + 1
                else:
                    key, i = self.ident(i)
                    if key is None:
                        m = re.compile(r"\d+").match(t, i)
                        if not m:
                            raise ParseError(f"object key expected at {t[i:i + 30]!r}")
                        key, i = m.group(0), m.end()
                i = self.ws(i)
                if t[i] == ":":
                    out[key], i = self.value_or_skip(i + 1, env)
                elif t[i] == "(":  # method shorthand
                    out[key] = UNPARSED
                    i = self.skip_balanced(i)
                else:  # shorthand property
                    out[key] = self.lookup(key, env)
            i = self.ws(i)
            if t[i] == ",":
                i += 1

    def arr(self, i, env):
        out = []
        while True:
            i = self.ws(i)
            if self.t[i] == "]":
                return out, i + 1
            if self.t.startswith("...", i):
                v, i = self.value_or_skip(i + 3, env)
                out.extend(v if isinstance(v, list) else [UNPARSED])
            else:
                v, i = self.value_or_skip(i, env)
                out.append(v)
            i = self.ws(i)
            if self.t[i] == ",":
                i += 1


def plain_json(v):
    """The value if it is plain JSON data (no unreadable parts), else None."""
    if v is UNPARSED or isinstance(v, JSFunction):
        return None
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            y = plain_json(x)
            if y is None and x is not None:
                return None
            out[k] = y
        return out
    if isinstance(v, list):
        out = [plain_json(x) for x in v]
        return None if any(y is None and x is not None for x, y in zip(out, v)) else out
    return v


def js_calls(text, callee_re, js=None):
    """Yields (name, description, config-object) for `callee(NAME, DESC, ...)` or
    `callee(NAME, { description: ..., ... })` calls matched by callee_re."""
    js = js or JS(text)
    for m in re.finditer(callee_re, text):
        i = m.end()
        name, i = js.expr(i, {})
        i = js.ws(i)
        assert text[i] == ",", text[m.start():m.start() + 80]
        i = js.ws(i + 1)
        if text[i] == "{":
            cfg, _ = js.obj(i + 1, {})
            yield name, cfg.get("description"), cfg
        else:
            desc, _ = js.expr(i, {})
            yield name, desc, None


# =========================================================================
# A small reader for Go expressions: interpreted and raw string literals,
# `+`, package-level consts and vars, fmt.Sprintf, and calls of package
# functions returning a string whose bodies are `if <bool param> { return
# ... }` / `return ...`.
# =========================================================================
GO_ESC = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


class Go:
    def __init__(self, texts):
        self.t = "\n".join(texts)
        self.decls, self.funcs = {}, {}
        for m in re.finditer(r"^(?:const|var)\s+([A-Za-z_]\w*)\s*(?:[A-Za-z_][\w.]*\s*)?=\s*", self.t, re.M):
            self.decls.setdefault(m.group(1), m.end())
        for m in re.finditer(r"^(?:const|var)\s*\((.*?)^\)", self.t, re.M | re.S):
            for d in re.finditer(r"^\s*([A-Za-z_]\w*)\s*(?:[A-Za-z_][\w.]*\s*)?=\s*", m.group(1), re.M):
                self.decls.setdefault(d.group(1), m.start(1) + d.end())
        for m in re.finditer(r"^func\s+([A-Za-z_]\w*)\(([^)]*)\)\s*string\s*\{", self.t, re.M):
            params = [p.split()[0] for p in m.group(2).split(",") if p.strip()]
            self.funcs[m.group(1)] = (params, m.end())

    def ws(self, i):
        t = self.t
        while True:
            while t[i].isspace():
                i += 1
            if t.startswith("//", i):
                i = t.index("\n", i)
                continue
            if t.startswith("/*", i):
                i = t.index("*/", i) + 2
                continue
            return i

    def expr(self, i, env):
        v, i = self.term(i, env)
        while True:
            j = self.ws(i)
            if self.t[j] == "+":
                w, i = self.term(j + 1, env)
                if not isinstance(v, str) or not isinstance(w, str):
                    raise ParseError("non-string in Go concatenation")
                v += w
            else:
                return v, i

    def term(self, i, env):
        i = self.ws(i)
        t = self.t
        if t[i] == '"':
            i += 1
            buf = []
            while t[i] != '"':
                if t[i] == "\\":
                    n = t[i + 1]
                    if n == "u":
                        buf.append(chr(int(t[i + 2:i + 6], 16)))
                        i += 6
                        continue
                    buf.append(GO_ESC[n])
                    i += 2
                    continue
                buf.append(t[i])
                i += 1
            return "".join(buf), i + 1
        if t[i] == "`":
            j = t.index("`", i + 1)
            return t[i + 1:j].replace("\r", ""), j + 1
        m = re.compile(r"[A-Za-z_][\w.]*").match(t, i)
        if not m:
            m2 = re.compile(r"\d+").match(t, i)
            if m2:
                return int(m2.group(0)), m2.end()
            raise ParseError(f"unexpected Go text {t[i:i + 30]!r}")
        name, j = m.group(0), m.end()
        if name in ("true", "false"):
            return name == "true", j
        k = self.ws(j)
        if t[k] == "(":
            args, j = self.args(k + 1, env)
            if name == "fmt.Sprintf":
                return self.sprintf(args[0], args[1:]), j
            if name in self.funcs:
                params, body = self.funcs[name]
                return self.block(body, dict(zip(params, args))), j
            raise ParseError(f"unknown Go function {name}")
        if name in env:
            return env[name], j
        if name in self.decls:
            return self.expr(self.decls[name], {})[0], j
        raise ParseError(f"unknown Go name {name}")

    def args(self, i, env):
        out = []
        while True:
            i = self.ws(i)
            if self.t[i] == ")":
                return out, i + 1
            v, i = self.expr(i, env)
            out.append(v)
            i = self.ws(i)
            if self.t[i] == ",":
                i += 1

    @staticmethod
    def sprintf(fmt, args):
        out, it = [], iter(args)

        def sub(m):
            if m.group(0) == "%%":
                return "%"
            v = next(it)
            return json.dumps(v) if m.group(1) == "q" else str(v)
        return re.sub(r"%%|%([sdvq])", sub, fmt)

    def block(self, i, env):
        """Runs a function body from just after its `{`; returns the returned value."""
        t = self.t
        while True:
            i = self.ws(i)
            if t.startswith("return", i):
                return self.expr(i + 6, env)[0]
            m = re.compile(r"if\s+(!?)([A-Za-z_]\w*)\s*\{").match(t, i)
            if m:
                cond = bool(env[m.group(2)]) != (m.group(1) == "!")
                body = m.end()
                end = self.block_end(body)
                if cond:
                    return self.block(body, env)
                i = self.ws(end + 1)
                if t.startswith("else", i):
                    j = self.ws(i + 4)
                    return self.block(j + 1, env)
                continue
            raise ParseError(f"unsupported Go statement {t[i:i + 40]!r}")

    def block_end(self, i):
        t, depth = self.t, 1
        while True:
            c = t[i]
            if c == '"':
                i += 1
                while t[i] != '"':
                    i += 2 if t[i] == "\\" else 1
            elif c == "`":
                i = t.index("`", i + 1)
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return i
            i += 1


# =========================================================================
# Servers
# =========================================================================
def notion():
    """Tools generated from the bundled Notion OpenAPI spec the way
    src/openapi-mcp-server (parser.ts convertToMCPTools + proxy.ts ListTools)
    does: name `API-<operationId>`, description "Notion | " + summary (or
    description) + the 4xx/5xx responses."""
    repo = "makenotion/notion-mcp-server"
    path = "scripts/notion-openapi.json"
    spec = json.loads(show(repo, path))

    def resolve(obj):
        while isinstance(obj, dict) and "$ref" in obj:
            node = spec
            for part in obj["$ref"].lstrip("#/").split("/"):
                node = node[part]
            obj = node
        return obj

    tools = []
    for _path, item in spec["paths"].items():
        for method, op in item.items():
            if method.lower() not in ("get", "post", "put", "delete", "patch") or "operationId" not in op:
                continue
            name = op["operationId"]
            if len(name) > 64:
                raise ParseError("long Notion operationId; uniquifying not reproduced")
            desc = op.get("summary") or op.get("description") or ""
            errors = [f"{code}: {(resolve(r) or {}).get('description', '')}"
                      for code, r in op.get("responses", {}).items() if code.startswith(("4", "5"))]
            if errors:
                desc += "\nError Responses:\n" + "\n".join(errors)
            if spec["info"]["title"] == "Notion API":
                desc = "Notion | " + desc
            tools.append((("API-" + name)[:64], desc))
    return catalog("notion", repo, [path, "src/openapi-mcp-server/openapi/parser.ts",
                                    "src/openapi-mcp-server/mcp/proxy.ts"], tools)


def stripe():
    """The MCP server (tools/modelcontextprotocol) registers the shared tool
    definitions of tools/typescript/src/shared/tools.ts: `method` is the MCP
    tool name, the prompt function (called with an empty context) the
    description."""
    repo = "stripe/agent-toolkit"
    index = show(repo, "tools/typescript/src/shared/tools.ts")
    imports = dict(re.findall(r"import (\w+) from '@/shared/([\w/]+)';", index))
    order = re.findall(r"^\s+(\w+)\(context\),$", index, re.M)
    tools, paths = [], ["tools/typescript/src/shared/tools.ts"]
    for var in order:
        path = f"tools/typescript/src/shared/{imports[var]}.ts"
        paths.append(path)
        text = show(repo, path)
        js = JS(text, extra={"context": {}})
        m = re.search(r"const tool = \(context: Context\): StripeToolDefinition => \(\{", text)
        cfg, _ = js.obj(m.end(), {"context": {}})
        tools.append((cfg["method"], cfg["description"]))
    return catalog("stripe", repo, paths, tools)


def grafana():
    """`mcpgrafana.MustTool(name, description, ...)` vars in tools/*.go. Where a
    read-only and a read-write variant share a name, the read-write one is
    kept: the server registers it by default (--disable-write is false)."""
    repo = "grafana/mcp-grafana"
    paths = sorted(p for p in ls(repo, "tools") if re.fullmatch(r"tools/[^/]+\.go", p) and not p.endswith("_test.go"))
    texts = [show(repo, p) for p in paths]
    go = Go(texts)
    found = []
    for m in re.finditer(r"^var\s+(\w+)\s*=\s*mcpgrafana\.MustTool\(", go.t, re.M):
        name, i = go.expr(m.end(), {})
        i = go.ws(i)
        assert go.t[i] == ","
        desc, _ = go.expr(i + 1, {})
        found.append((m.group(1), name, desc))
    tools = []
    for var, name, desc in found:
        variants = [f for f in found if f[1] == name]
        preferred = [f for f in variants if not re.search(r"Read(Only)?$", f[0])] or variants
        if preferred[0][0] == var:
            tools.append((name, desc))
    return catalog("grafana", repo, ["tools/*.go"], tools)


def mongodb():
    """Tool classes of the tools-mongodb, tools-atlas, tools-atlas-local and
    tools-assistant packages: `static toolName` and the `description` field
    (with no connection string preconfigured)."""
    repo = "mongodb-js/mongodb-mcp-server"
    # constants the tool files import
    extra = {"DEFAULT_SLOW_QUERY_LOGS_LIMIT": int(re.search(
        r"export const DEFAULT_SLOW_QUERY_LOGS_LIMIT = (\d+);",
        show(repo, "packages/tools-atlas/src/helpers/performanceAdvisorUtils.ts")).group(1)),
        "EXPORT_TOOL_NAME": re.search(r'export const EXPORT_TOOL_NAME = "([^"]+)";',
                                      show(repo, "packages/tools-mongodb/src/helpers/constants.ts")).group(1)}
    tools, paths = [], []
    for pkg in ("tools-mongodb", "tools-atlas", "tools-atlas-local", "tools-assistant"):
        for path in sorted(ls(repo, f"packages/{pkg}/src/tools")):
            if not path.endswith(".ts") or path.endswith((".test.ts", "/tools.ts")):
                continue
            text = show(repo, path)
            js = JS(text, extra)
            for cls in re.finditer(r"^export class \w+ extends \w+ \{", text, re.M):
                body_end = text.find("\n}\n", cls.end())
                body = text[cls.end():body_end]
                n = re.search(r"^\s+(?:public\s+)?static toolName\s*=\s*", body, re.M)
                d = re.search(r"^\s+(?:public|protected)\s+(?:override\s+)?description\s*=\s*", body, re.M)
                if not n or not d:
                    continue
                name, _ = js.expr(cls.end() + n.end(), {})
                desc, _ = js.expr(cls.end() + d.end(), {})
                tools.append((name, desc))
                paths.append(path)
    return catalog("mongodb", repo, paths, tools)


def kubernetes():
    """The tools/list snapshots the test suite checks the server against."""
    repo = "containers/kubernetes-mcp-server"
    paths = ["pkg/mcp/testdata/toolsets-full-tools.json",
             "pkg/mcp/testdata/toolsets-full-tools-multicluster.json",
             "pkg/mcp/testdata/toolsets-helm-tools.json",
             "pkg/mcp/testdata/toolsets-kiali-tools.json",
             "pkg/mcp/testdata/toolsets-kubevirt-tools.json",
             "pkg/mcp/testdata/toolsets-tekton-tools.json"]
    tools = []
    for path in paths:
        for t in json.loads(show(repo, path)):
            tools.append((t["name"], t["description"], t.get("inputSchema")))
    return catalog("kubernetes", repo, paths, tools)


def terraform():
    """`mcp.NewTool(name, mcp.WithDescription(...), ...)` in pkg/tools."""
    repo = "hashicorp/terraform-mcp-server"
    paths = sorted(p for p in ls(repo, "pkg/tools") if p.endswith(".go") and not p.endswith("_test.go"))
    tools = []
    for path in paths:
        text = show(repo, path)
        go = Go([text])
        for m in re.finditer(r"mcp\.NewTool\(", go.t):
            name, _ = go.expr(m.end(), {})
            d = go.t.index("mcp.WithDescription(", m.end())
            desc, _ = go.expr(d + len("mcp.WithDescription("), {})
            tools.append((name, desc))
    return catalog("terraform", repo, ["pkg/tools/registry/*.go", "pkg/tools/tfe/*.go"], tools)


def azure_devops():
    """`server.tool(NAME, description, ...)` in src/tools/*.ts, the names from
    each file's `*_TOOLS` map."""
    repo = "microsoft/azure-devops-mcp"
    paths = sorted(p for p in ls(repo, "src/tools") if p.endswith(".ts") and not p.endswith(".dto.ts"))
    tools = []
    for path in paths:
        for name, desc, _ in js_calls(show(repo, path), r"\bserver\.(?:tool|registerTool)\(\s*"):
            tools.append((name, desc))
    return catalog("azure_devops", repo, paths, tools)


def firecrawl():
    """The `Tool` constants returned by ListTools in src/index.ts (with their
    literal JSON input schemas)."""
    repo = "mendableai/firecrawl-mcp-server"
    path = "src/index.ts"
    text = show(repo, path)
    js = JS(text)
    listed = re.search(r"ListToolsRequestSchema, async \(\) => \(\{\s*tools: \[([^\]]*)\]", text).group(1)
    tools = []
    for var in re.findall(r"\w+", listed):
        t = js.lookup(var, {})
        tools.append((t["name"], t["description"], plain_json(t.get("inputSchema"))))
    return catalog("firecrawl", repo, [path], tools)


def exa():
    """`server.tool(name, description, ...)` in src/tools/*.ts; crawling_exa is
    registered by src/mcp-handler.ts as a second name of the web_fetch tool."""
    repo = "exa-labs/exa-mcp-server"
    paths = sorted(p for p in ls(repo, "src/tools") if p.endswith(".ts"))
    tools = []
    for path in paths:
        for name, desc, _ in js_calls(show(repo, path), r"\bserver\.tool\(\s*"):
            tools.append((name, desc))
    handler = show(repo, "src/mcp-handler.ts")
    for alias, orig in (("crawling_exa", "web_fetch_exa"),):
        if re.search(rf'registerWebFetchTool\(server, config, "{alias}"\)', handler):
            tools.append((alias, dict(tools)[orig]))
    return catalog("exa", repo, paths + ["src/mcp-handler.ts"], tools)


def neon():
    """The NEON_TOOLS array of mcp/tools/definitions.ts."""
    repo = "neondatabase/mcp-server-neon"
    path = "mcp/tools/definitions.ts"
    consts = dict((k, json.loads(v) if v[0] == '"' else v.strip("'"))
                  for k, v in re.findall(r"^export const (\w+) = ('[^']*'|\"[^\"]*\");", show(repo, "mcp/constants.ts"), re.M))
    js = JS(show(repo, path), consts)
    defs = js.lookup("NEON_TOOLS", {})
    return catalog("neon", repo, [path, "mcp/constants.ts"], [(d["name"], d["description"]) for d in defs])


def heroku():
    """`server.tool(name, description, ...)` in src/tools/*.ts."""
    repo = "heroku/heroku-mcp-server"
    paths = sorted(p for p in ls(repo, "src/tools") if p.endswith(".ts") and not p.endswith(".spec.ts"))
    tools = []
    for path in paths:
        for name, desc, _ in js_calls(show(repo, path), r"\bserver\.tool\(\s*"):
            tools.append((name, desc))
    return catalog("heroku", repo, paths, tools)


# packages/mcp-common/src/format.ts
CLOUDFLARE_FMT = {
    "trim": lambda s: "\n".join(line.strip() for line in s.strip().split("\n")),
    "oneLine": lambda s: " ".join(line.strip() for line in s.strip().split("\n") if line.strip()),
}


def cloudflare(server, app_path, files):
    """One of the remote MCP servers of the cloudflare/mcp-server-cloudflare
    monorepo: the `register*Tools(context)` modules its app registers, in that
    order; tools come from `context.accountTool(name, {description})` and
    `context.registerTool(name, {description})`."""
    repo = "cloudflare/mcp-server-cloudflare"
    app = show(repo, app_path)
    tools = []
    for path in files:
        reg = re.search(r"export function (register\w+)\s*[<(]", show(repo, path)).group(1)
        assert re.search(rf"\b{reg}\b", app), (reg, app_path)
        text = show(repo, path)
        js = JS(text, {"fmt": CLOUDFLARE_FMT} if re.search(r"import \{ fmt \} from '[./@\w-]*/format'", text) else {})
        for name, desc, _ in js_calls(text, r"\bcontext\.(?:accountTool|registerTool)\(\s*", js):
            tools.append((name, desc))
    return catalog(server, repo, [app_path] + files, tools)


catalogs = [
    notion(),
    stripe(),
    grafana(),
    mongodb(),
    kubernetes(),
    terraform(),
    azure_devops(),
    firecrawl(),
    exa(),
    neon(),
    heroku(),
    cloudflare("cloudflare_bindings", "apps/workers-bindings/src/bindings.app.ts", [
        "apps/workers-bindings/src/tools/kv_namespace.tools.ts",
        "packages/mcp-common/src/shared-tools/worker.tools.ts",
        "apps/workers-bindings/src/tools/r2_bucket.tools.ts",
        "apps/workers-bindings/src/tools/d1.tools.ts",
        "apps/workers-bindings/src/tools/hyperdrive.tools.ts",
        "packages/mcp-common/src/shared-tools/docs-ai-search.tools.ts",
    ]),
    cloudflare("cloudflare_observability", "apps/workers-observability/src/workers-observability.app.ts", [
        "packages/mcp-common/src/shared-tools/worker.tools.ts",
        "apps/workers-observability/src/tools/workers-observability.tools.ts",
        "packages/mcp-common/src/shared-tools/docs-ai-search.tools.ts",
    ]),
    cloudflare("cloudflare_browser", "apps/browser-rendering/src/browser.app.ts", [
        "apps/browser-rendering/src/tools/browser.tools.ts",
    ]),
]
json.dump({"catalogs": catalogs}, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
