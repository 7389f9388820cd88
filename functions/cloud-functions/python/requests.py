"""The part of the `requests` library that cloud functions use, going out through the service.

Every request is handed to the host (the engine's parent process) through the device /dev/host:
the host checks it with the same SSRF guard as JavaScript functions (HTTPS only, public addresses
only, each redirect checked), bounds its time and size and the number of calls, and answers with
the response. Nothing here opens a socket. A refusal or failure raises ConnectionError (Timeout
for a timeout) with the guard's message.
"""
import base64 as _base64
import json as _json
import os as _os
import sys as _sys
import types as _types
from collections.abc import Mapping as _Mapping, MutableMapping as _MutableMapping
from urllib.parse import urlencode as _urlencode, urlsplit as _urlsplit, urlunsplit as _urlunsplit

__all__ = [
    "request", "get", "post", "put", "patch", "delete", "head", "options", "Session", "Response",
    "RequestException", "ConnectionError", "Timeout", "HTTPError", "ConnectTimeout", "ReadTimeout",
    "TooManyRedirects", "JSONDecodeError", "HTTPBasicAuth", "exceptions", "auth", "codes",
]

_DEVICE = "/dev/host"


class RequestException(IOError):
    def __init__(self, *args, response=None, request=None):
        super().__init__(*args)
        self.response = response
        self.request = request


class ConnectionError(RequestException):
    pass


class Timeout(RequestException):
    pass


class ConnectTimeout(ConnectionError, Timeout):
    pass


class ReadTimeout(Timeout):
    pass


class HTTPError(RequestException):
    pass


class TooManyRedirects(ConnectionError):
    """A subclass of ConnectionError here (RequestException in requests): every failure of the call is one."""


class JSONDecodeError(RequestException, _json.JSONDecodeError):
    """Response.json() on a body that is not JSON; also a ValueError, as in requests."""

    def __init__(self, msg, doc, pos):
        _json.JSONDecodeError.__init__(self, msg, doc, pos)
        self.response = None
        self.request = None


class InvalidURL(RequestException, ValueError):
    pass


# `requests.exceptions`, as an attribute and as an importable name (`from requests.exceptions import HTTPError`).
exceptions = _types.ModuleType("requests.exceptions")
for _name in ("RequestException", "ConnectionError", "Timeout", "ConnectTimeout", "ReadTimeout", "HTTPError", "TooManyRedirects", "InvalidURL", "JSONDecodeError"):
    setattr(exceptions, _name, globals()[_name])
_sys.modules["requests.exceptions"] = exceptions


class HTTPBasicAuth:
    """`auth=HTTPBasicAuth(user, password)`, the same as `auth=(user, password)`."""

    def __init__(self, username, password):
        self.username = username
        self.password = password


auth = _types.ModuleType("requests.auth")
auth.HTTPBasicAuth = HTTPBasicAuth
_sys.modules["requests.auth"] = auth


class _Codes:
    ok = 200
    created = 201
    accepted = 202
    no_content = 204
    bad_request = 400
    unauthorized = 401
    forbidden = 403
    not_found = 404
    conflict = 409
    too_many_requests = 429
    internal_server_error = 500


codes = _Codes()


class CaseInsensitiveDict(_MutableMapping):
    def __init__(self, data=None, **kwargs):
        self._store = {}
        self.update(data or {}, **kwargs)

    def __setitem__(self, key, value):
        self._store[key.lower()] = (key, value)

    def __getitem__(self, key):
        return self._store[key.lower()][1]

    def __delitem__(self, key):
        del self._store[key.lower()]

    def __iter__(self):
        return (original for original, _ in self._store.values())

    def __len__(self):
        return len(self._store)

    def copy(self):
        return CaseInsensitiveDict(self.items())

    def __repr__(self):
        return repr(dict(self.items()))


class Response:
    def __init__(self, status_code, reason, headers, content, url, history=()):
        self.status_code = status_code
        self.reason = reason
        self.headers = CaseInsensitiveDict(headers)
        self.content = content
        self.url = url
        self.history = list(history)
        self.encoding = _charset(self.headers.get("content-type"))
        self.request = None

    @property
    def ok(self):
        return self.status_code < 400

    @property
    def text(self):
        return self.content.decode(self.encoding or "utf-8", errors="replace")

    def json(self, **kwargs):
        try:
            return _json.loads(self.text, **kwargs)
        except _json.JSONDecodeError as err:
            raise JSONDecodeError(err.msg, err.doc, err.pos) from None

    def raise_for_status(self):
        kind = "Client" if 400 <= self.status_code < 500 else "Server" if 500 <= self.status_code < 600 else None
        if kind:
            raise HTTPError("%s %s Error: %s for url: %s" % (self.status_code, kind, self.reason, self.url), response=self)

    def iter_content(self, chunk_size=1, decode_unicode=False):
        step = max(1, chunk_size or len(self.content) or 1)
        for i in range(0, len(self.content), step):
            chunk = self.content[i:i + step]
            yield chunk.decode(self.encoding or "utf-8", errors="replace") if decode_unicode else chunk

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return "<Response [%s]>" % self.status_code


def _charset(content_type):
    if not content_type:
        return None
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            return value.strip("\"'")
    if content_type.split(";")[0].strip().lower() in ("application/json", "text/plain", "text/html"):
        return "utf-8"
    return None


def _with_params(url, params):
    if not params:
        return url
    if isinstance(params, (str, bytes)):
        query = params.decode() if isinstance(params, bytes) else params
    else:
        items = params.items() if isinstance(params, _Mapping) else params
        pairs = []
        for key, value in items:
            for v in value if isinstance(value, (list, tuple)) else [value]:
                if v is not None:
                    pairs.append((key, v))
        query = _urlencode(pairs)
    parts = _urlsplit(url)
    joined = parts.query + "&" + query if parts.query else query
    return _urlunsplit((parts.scheme, parts.netloc, parts.path, joined, parts.fragment))


def _timeout_seconds(timeout):
    """`timeout=` as one number of seconds: a (connect, read) pair counts as their sum."""
    if timeout is None:
        return None
    if isinstance(timeout, (tuple, list)):
        values = [t for t in timeout if t is not None]
        return float(sum(values)) if values else None
    return float(timeout)


def _exchange(method, url, headers, body, timeout, redirects):
    message = _json.dumps({
        "method": method,
        "redirect": "follow" if redirects else "manual",
        "url": url,
        "headers": headers,
        "body": None if body is None else _base64.b64encode(body).decode("ascii"),
        "timeout": timeout,
    }).encode("utf-8")
    fd = _os.open(_DEVICE, _os.O_RDWR)
    try:
        _os.write(fd, message)
        chunks = []
        while True:
            chunk = _os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        _os.close(fd)
    return _json.loads(b"".join(chunks))


def request(method, url, params=None, data=None, headers=None, json=None, timeout=None, auth=None, allow_redirects=True, **_ignored):
    """One HTTP request through the host. `verify`, `stream`, `cookies` and the like are accepted and ignored."""
    method = str(method).upper()
    if not isinstance(url, str):
        url = str(url)
    sent = {}
    for key, value in (headers or {}).items():
        if value is not None:
            sent[str(key)] = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    lower = {k.lower() for k in sent}
    body = None
    if json is not None and data is None:
        body = _json.dumps(json).encode("utf-8")
        if "content-type" not in lower:
            sent["Content-Type"] = "application/json"
    elif data is not None:
        if isinstance(data, bytes):
            body = data
        elif isinstance(data, bytearray):
            body = bytes(data)
        elif isinstance(data, str):
            body = data.encode("utf-8")
        elif isinstance(data, (_Mapping, list, tuple)):
            items = data.items() if isinstance(data, _Mapping) else data
            pairs = []
            for key, value in items:
                for v in value if isinstance(value, (list, tuple)) else [value]:
                    if v is not None:
                        pairs.append((key, v))
            body = _urlencode(pairs).encode("ascii")
            if "content-type" not in lower:
                sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif hasattr(data, "read"):
            read = data.read()
            body = read.encode("utf-8") if isinstance(read, str) else bytes(read)
        else:
            raise TypeError("data must be a dict, a list of pairs, str or bytes")
    if isinstance(auth, HTTPBasicAuth):
        auth = (auth.username, auth.password)
    if auth is not None:
        if not (isinstance(auth, (tuple, list)) and len(auth) == 2):
            raise TypeError("auth must be a (user, password) pair")
        user, password = (a.encode("latin-1") if isinstance(a, str) else a for a in auth)
        sent["Authorization"] = "Basic " + _base64.b64encode(user + b":" + password).decode("ascii")
    full = _with_params(url, params)
    answer = _exchange(method, full, sent, body, _timeout_seconds(timeout), allow_redirects)
    if not answer.get("ok"):
        text = answer.get("message") or "the request failed"
        kind = answer.get("kind")
        if kind == "timeout":
            raise ReadTimeout(text)
        if kind == "redirects":
            raise TooManyRedirects(text)
        raise ConnectionError(text)
    response = Response(
        answer["status"], answer.get("reason", ""), answer.get("headers", {}),
        _base64.b64decode(answer.get("body") or ""), answer.get("url", full),
    )
    return response


def get(url, params=None, **kwargs):
    return request("GET", url, params=params, **kwargs)


def options(url, **kwargs):
    return request("OPTIONS", url, **kwargs)


def head(url, **kwargs):
    kwargs.setdefault("allow_redirects", False)
    return request("HEAD", url, **kwargs)


def post(url, data=None, json=None, **kwargs):
    return request("POST", url, data=data, json=json, **kwargs)


def put(url, data=None, **kwargs):
    return request("PUT", url, data=data, **kwargs)


def patch(url, data=None, **kwargs):
    return request("PATCH", url, data=data, **kwargs)


def delete(url, **kwargs):
    return request("DELETE", url, **kwargs)


class Session:
    """Default headers, params and auth for several requests (no cookies, no connection pooling)."""

    def __init__(self):
        self.headers = CaseInsensitiveDict()
        self.params = {}
        self.auth = None

    def request(self, method, url, params=None, headers=None, auth=None, **kwargs):
        merged = CaseInsensitiveDict(self.headers)
        merged.update(headers or {})
        query = dict(self.params)
        if isinstance(params, _Mapping):
            query.update(params)
            params = query
        elif params is None:
            params = query or None
        return request(method, url, params=params, headers=dict(merged.items()), auth=auth if auth is not None else self.auth, **kwargs)

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def options(self, url, **kwargs):
        return self.request("OPTIONS", url, **kwargs)

    def head(self, url, **kwargs):
        return self.request("HEAD", url, **kwargs)

    def post(self, url, data=None, json=None, **kwargs):
        return self.request("POST", url, data=data, json=json, **kwargs)

    def put(self, url, data=None, **kwargs):
        return self.request("PUT", url, data=data, **kwargs)

    def patch(self, url, data=None, **kwargs):
        return self.request("PATCH", url, data=data, **kwargs)

    def delete(self, url, **kwargs):
        return self.request("DELETE", url, **kwargs)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
