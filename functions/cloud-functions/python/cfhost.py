"""The child's side of a run (installed as the module `_cfhost`): compile, run at top level, turn
`results` into JSON. The child's JavaScript calls check() and run() with strings and gets a JSON
string back; nothing else crosses.
"""
import base64
import builtins
import datetime
import decimal
import json
import linecache
import math
import sys
import traceback

import cfresults

# Taken now (in the snapshot): a script that patches json or builtins breaks only its own code.
_dumps = json.dumps
_loads = json.loads
_len = len

FILENAME = "function.py"
# The same bound as JavaScript functions' output (sandbox.ts MAX_OUTPUT_DEPTH); also stops cycles.
MAX_DEPTH = 64
SYNTAX_ERRORS = (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError)


def _syntax_problem(src, err):
    """(line, column, message) of a script that does not compile."""
    nul = src.find("\0")
    if nul >= 0:
        # Python reports it without a position.
        line = src.count("\n", 0, nul) + 1
        return line, nul - (src.rfind("\n", 0, nul) + 1) + 1, "source code cannot contain null bytes"
    if isinstance(err, SyntaxError):
        line = err.lineno or 1
        column = err.offset or 1
        return line, max(1, column), err.msg or str(err)
    return 1, 1, "%s: %s" % (type(err).__name__, err)


def check(src):
    try:
        compile(src, FILENAME, "exec", dont_inherit=True)
    except SYNTAX_ERRORS as err:
        line, column, message = _syntax_problem(src, err)
        return _dumps({"ok": False, "line": line, "column": column, "message": message})
    return _dumps({"ok": True})


class _OutputInvalid(Exception):
    pass


def _path(parent, key):
    if isinstance(key, str) and key.isidentifier():
        return "%s.%s" % (parent, key)
    return "%s[%r]" % (parent, key)


def _key(key, path):
    if isinstance(key, str):
        return key
    # As json.dumps turns them into keys.
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return str(int(key))
    if isinstance(key, float) and math.isfinite(key):
        return repr(float(key))
    raise _OutputInvalid("%s has a key of type %s (%r): keys must be strings" % (path, type(key).__name__, key))


def _plain(value, path, depth):
    """The value as JSON-able Python (dict, list, str, int, float, bool, None), or _OutputInvalid."""
    if depth > MAX_DEPTH:
        raise _OutputInvalid("results are nested deeper than %d levels (at %s)" % (MAX_DEPTH, path))
    if value is None or value is True or value is False:
        return value
    if isinstance(value, cfresults.Outcome):
        return value.value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _OutputInvalid("%s is %r, which JSON cannot hold" % (path, value))
        return float(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _key(key, path)
            out[name] = _plain(item, _path(path, key), depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, "%s[%d]" % (path, i), depth + 1) for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items = list(value)
        try:
            items.sort()
        except TypeError:
            pass
        return [_plain(item, "%s[%d]" % (path, i), depth + 1) for i, item in enumerate(items)]
    if isinstance(value, (cfresults.OverallResult, cfresults.Result)):
        return _plain(cfresults.OverallResultEncoder().default(value), path, depth)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise _OutputInvalid(
        "%s is of type %s, which cannot be stored: use dict, list, str, int, float, bool or None "
        "(datetime, date, time, Decimal, set, tuple, bytes and cfresults objects are converted)" % (path, type(value).__name__)
    )


def _line_of(tb):
    """The script's line where the exception surfaced: the deepest frame of the function's own code."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe(err, line):
    name = type(err).__name__
    try:
        text = str(err)
    except BaseException:
        text = "(the exception's message could not be read)"
    message = "%s: %s" % (name, text) if text else name
    if isinstance(err, SyntaxError) and err.filename == FILENAME and err.lineno:
        line = err.lineno
    return "%s (line %d)" % (message, line) if line else message


def run(src, params_json, output_limit):
    try:
        code = compile(src, FILENAME, "exec", dont_inherit=True)
    except SYNTAX_ERRORS as err:
        line, column, message = _syntax_problem(src, err)
        kind = type(err).__name__ if isinstance(err, SyntaxError) else "SyntaxError"
        return _dumps({"status": "invalid", "message": "%s: %s (line %d, column %d)" % (kind, message, line, column)})
    # Traceback lines show the script's own text.
    linecache.cache[FILENAME] = (len(src), None, src.splitlines(True), FILENAME)
    scope = {"__name__": "__main__", "__builtins__": builtins, "params": _loads(params_json), "results": {}}
    try:
        exec(code, scope)
    except BaseException as err:  # SystemExit and KeyboardInterrupt too: the run ends either way.
        _flush()
        tb = err.__traceback__.tb_next if err.__traceback__ is not None else None
        try:
            lines = "".join(traceback.format_exception(type(err), err, tb)).splitlines()
        except BaseException:
            lines = []
        return _dumps({"status": "error", "message": _describe(err, _line_of(tb)), "traceback": lines})
    _flush()
    results = scope.get("results")
    if not isinstance(results, dict):
        return _dumps({"status": "output", "message": "results must stay a dict; the script set it to a value of type %s" % type(results).__name__})
    try:
        text = _dumps(_plain(results, "results", 1), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except _OutputInvalid as err:
        return _dumps({"status": "output", "message": str(err)})
    except BaseException as err:  # a script that broke json or builtins breaks only its own output
        return _dumps({"status": "output", "message": "results cannot be written as JSON: %s" % err})
    if _len(text.encode("utf-8")) > output_limit:
        return _dumps({"status": "output", "message": "results are over %d bytes of JSON" % output_limit})
    return _dumps({"status": "ok", "output": text})


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
