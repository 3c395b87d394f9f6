"""The client: one method per read (from the generated table), retries, the budget, paging."""

from __future__ import annotations

import json
import os
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from http.client import HTTPException
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

from ._generated import READS, Read, Reads
from .errors import GeoApiError, IncompleteListError, NetworkError, UnexpectedResponse, error_for

__version__ = "0.1.0"

#: The 503 codes that say "try again shortly"; each is retried once (docs/clients.md, retries).
TRANSIENT_CODES = frozenset({"rate_limit_unavailable", "upstream_timeout"})
#: A gateway's own answers in front of the API (not its JSON body), retried once like no answer at all.
GATEWAY_STATUSES = frozenset({502, 503, 504})


@dataclass(frozen=True)
class RateLimit:
    """The workspace's per-minute budget as the last counted call left it (X-RateLimit-* headers)."""

    #: Calls per minute the plan allows (all the workspace's keys and MCP together).
    limit: int
    #: Calls left in the current UTC minute.
    remaining: int
    #: Seconds before the next call is available; 0 while budget remains.
    reset: int


@dataclass(frozen=True)
class Wait:
    """A pause before a retry, as given to the ``on_wait`` callback before the client sleeps."""

    #: The read being called.
    read: str
    #: The retry this pause precedes: 1 for the first retry.
    attempt: int
    #: How long the client sleeps, in seconds.
    seconds: float
    #: Why: the error that will be retried (its ``code`` is ``rate_limited``, ``network_error``...).
    error: GeoApiError


def _int_header(headers: Mapping[str, str], name: str) -> Optional[int]:
    value = headers.get(name)
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())


class Client(Reads):
    """A client of the GEO measurement API.

    Args:
        api_key: the key (``geo_live_...``); default: the environment variable GEO_API_KEY.
        base_url: the base address, ending with ``/api/v1``; default: the environment variable GEO_BASE_URL.
            ``npm start`` prints it and writes it to ``.local/demo.json``.
        timeout: seconds to wait for one answer.
        max_retries: retries at most per call, all causes together (0: never retry).
        on_wait: called with a :class:`Wait` before each pause, so a program can show or log it.
        sleep: how the client pauses (``time.sleep``); a program running its own loop may pass another.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 30,
        max_retries: int = 2,
        *,
        on_wait: Optional[Callable[[Wait], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("GEO_API_KEY")
        base = base_url if base_url is not None else os.environ.get("GEO_BASE_URL")
        if not key:
            raise ValueError("no API key: pass api_key or set GEO_API_KEY")
        if not base:
            raise ValueError("no base address: pass base_url or set GEO_BASE_URL (e.g. https://<host>/api/v1)")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.base_url = base.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.on_wait = on_wait
        self._sleep = sleep
        self._key = key
        #: The budget after the last call that reached the counter; None before the first.
        self.rate_limit: Optional[RateLimit] = None
        #: The X-Request-Id of the last answer.
        self.last_request_id: Optional[str] = None

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r})"

    # -- one call -------------------------------------------------------------------------------------

    def _url(self, read: Read, params: Mapping[str, Any]) -> str:
        path = read.path
        for name in read.path_params:
            value = params.get(name)
            if value is None or value == "":
                raise TypeError(f"{name} is required")
            path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        query = [(name, str(params[name])) for name in read.query_params if params.get(name) is not None]
        return self.base_url + path + (("?" + urllib.parse.urlencode(query)) if query else "")

    def _send(self, url: str) -> Tuple[int, Mapping[str, str], bytes]:
        request = urllib.request.Request(
            url,
            headers={
                "Authorization": f"Bearer {self._key}",
                "Accept": "application/json",
                "User-Agent": f"geo-api-python/{__version__}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as refused:
            with refused:
                return refused.code, refused.headers, refused.read()
        except (urllib.error.URLError, HTTPException, OSError, socket.timeout) as fault:
            reason = getattr(fault, "reason", fault)
            raise NetworkError("network_error", f"no answer from {self.base_url}: {reason}") from fault

    def _note(self, headers: Mapping[str, str]) -> None:
        self.last_request_id = headers.get("X-Request-Id") or self.last_request_id
        limit = _int_header(headers, "X-RateLimit-Limit")
        remaining = _int_header(headers, "X-RateLimit-Remaining")
        reset = _int_header(headers, "X-RateLimit-Reset")
        # 401/403 (decided before the budget) and some faults carry none: the last known budget stays.
        if limit is not None and remaining is not None and reset is not None:
            self.rate_limit = RateLimit(limit=limit, remaining=remaining, reset=reset)

    def _error(self, status: int, headers: Mapping[str, str], body: bytes) -> GeoApiError:
        retry_after = _int_header(headers, "Retry-After")
        request_id = headers.get("X-Request-Id")
        try:
            error = json.loads(body)["error"]
            code, message = str(error["code"]), str(error["message"])
        except (ValueError, KeyError, TypeError):
            text = body[:200].decode("utf-8", "replace")
            return UnexpectedResponse(
                "unexpected_response", f"HTTP {status}: {text}", status=status, request_id=request_id, retry_after=retry_after
            )
        if status == 404 and code == "not_found":
            message = _with_base_url_hint(message, self.base_url)
        return error_for(
            code,
            message,
            status=status,
            param=error.get("param"),
            request_id=error.get("request_id", request_id),
            retry_after=retry_after,
        )

    def _pause(self, attempt: int, error: GeoApiError) -> float:
        """How long to wait before a retry: what the API asked, else a short backoff with jitter."""
        if error.retry_after is not None:
            return float(error.retry_after)
        if error.code == "rate_limited" and self.rate_limit is not None and self.rate_limit.reset > 0:
            return float(self.rate_limit.reset)
        return min(8.0, 0.5 * 2 ** (attempt - 1)) * (1 + random.random() / 4)

    def _read(self, name: str, params: Mapping[str, Any]) -> Any:
        read = READS[name]
        url = self._url(read, params)
        transient_retried = False
        attempt = 0
        while True:
            try:
                status, headers, body = self._send(url)
            except NetworkError as fault:
                error: GeoApiError = fault
            else:
                self._note(headers)
                if status == 200:
                    try:
                        return json.loads(body)
                    except ValueError:
                        error = UnexpectedResponse(
                            "unexpected_response", "the body is not JSON", status=status, request_id=headers.get("X-Request-Id")
                        )
                else:
                    error = self._error(status, headers, body)
            # 429: wait what the API says, as often as max_retries allows. A store or counter fault, no
            # answer at all, or a gateway's own 502/503/504 (not the API's body): once, since a second
            # failure in a row is rarely transient.
            transient = (
                error.code in TRANSIENT_CODES
                or error.code == "network_error"
                or (error.code == "unexpected_response" and error.status in GATEWAY_STATUSES)
            )
            retryable = error.code == "rate_limited" or (transient and not transient_retried)
            if not retryable or attempt >= self.max_retries:
                raise error
            attempt += 1
            if error.code != "rate_limited":
                transient_retried = True
            seconds = self._pause(attempt, error)
            if self.on_wait is not None:
                self.on_wait(Wait(read=name, attempt=attempt, seconds=seconds, error=error))
            self._sleep(seconds)

    # -- any read by name, and paging ------------------------------------------------------------------

    def call(self, read: str, **params: Any) -> Any:
        """Calls a read by its MCP tool name with keyword arguments (``from_`` for ``from``)."""
        return self._read(read, _arguments(read, params))

    def paginate(self, read: str, **params: Any) -> "Pager":
        """Every item of a list read, page after page, each once.

        Cursor reads (list_analyses, list_answers) follow ``next_cursor``; list_group_prompts moves its
        ``offset``; the other lists are one page. ``limit`` is a page size, never a cut: without one, pages
        are as large as the read allows (fewer calls, less budget), and a one-page read (list_sources,
        list_runs) is always asked its largest page. Stops where the API says the list ends; when the list
        still says ``truncated`` where no call can go on, raises :class:`IncompleteListError` after
        yielding every item it got.
        """
        return Pager(self, read, params)


def _with_base_url_hint(message: str, base_url: str) -> str:
    """A base address without ``/api/v1`` (``http://127.0.0.1:3000``) reaches the API's host, which answers
    every read with a bare 404 ``not_found`` "No such endpoint": the one mistake that answer cannot tell
    apart, so the message says what to try. The code stays the API's; only the text for people changes."""
    path = urllib.parse.urlsplit(base_url).path.rstrip("/")
    if not message.startswith("No such endpoint") or path.endswith("/api/v1"):
        return message
    base = base_url.rstrip("/")
    return f"{message} The base URL {base} does not end with /api/v1, as the API's base address does: try {base}/api/v1."


def _arguments(read: str, params: Mapping[str, Any]) -> Dict[str, Any]:
    if read not in READS:
        raise ValueError(f"no read named {read!r}; the reads: {', '.join(READS)}")
    table = READS[read]
    out: Dict[str, Any] = {}
    for name, value in params.items():
        wire = name[:-1] if name.endswith("_") else name
        if wire not in table.path_params and wire not in table.query_params:
            raise TypeError(f"{read} takes no parameter {name!r}")
        out[wire] = value
    return out


def _identity(item: Any) -> str:
    """What tells two items of a list apart: their id, else the id or key of what they describe."""
    if isinstance(item, dict):
        for key in ("id", "slug"):
            if isinstance(item.get(key), str):
                return item[key]
        for key in ("prompt", "engine", "group", "brand"):
            inner = item.get(key)
            if isinstance(inner, dict):
                for field in ("id", "key", "domain", "name"):
                    if isinstance(inner.get(field), str):
                        return f"{key}:{inner[field]}"
    return json.dumps(item, sort_keys=True)


class Pager(Iterator[Any]):
    """An iterator over every item of a list read; ``total``, ``pages`` and ``yielded`` say what the API
    answered and what came of it."""

    def __init__(self, client: Client, read: str, params: Mapping[str, Any]) -> None:
        self.params = _arguments(read, params)
        table = READS[read]
        if table.paging is None:
            lists = [name for name, r in READS.items() if r.paging is not None]
            raise ValueError(f"{read!r} is not a list read; the list reads: {', '.join(lists)}")
        self.read = read
        if table.max_limit is not None:
            # A page size, never a cut: a one-page read always gets its largest page, since that page is
            # all any call can reach and a smaller one would only leave items out.
            if table.paging == "single":
                self.params["limit"] = table.max_limit
            else:
                self.params.setdefault("limit", table.max_limit)
        self._client = client
        self._paging = table.paging
        self._max_limit = table.max_limit
        #: The list's ``total`` as the last page stated it; None before the first page.
        self.total: Optional[int] = None
        #: Pages fetched so far.
        self.pages = 0
        #: Items yielded so far, each once.
        self.yielded = 0
        self._items: Iterator[Any] = iter(())
        self._seen: set = set()
        self._done = False
        #: Why the list ends short of its total, once its last page says so; None while it does not.
        self._short: Optional[str] = None

    def __iter__(self) -> "Pager":
        return self

    def _next_page(self) -> List[Any]:
        page = self._client._read(self.read, self.params)
        self.pages += 1
        self.total = page.get("total")
        items = list(page.get("items") or [])
        truncated = bool(page.get("truncated"))
        if self._paging == "cursor" and page.get("next_cursor") and page["next_cursor"] != self.params.get("cursor"):
            self.params["cursor"] = page["next_cursor"]
            return items
        if self._paging == "offset" and truncated and items:
            self.params["offset"] = int(self.params.get("offset") or 0) + len(items)
            return items
        self._done = True
        if truncated:
            # Told once the items of this page are yielded: the caller keeps every item got, then learns
            # that the list holds more than any call can reach.
            if self._paging == "cursor":
                reason = "the API said the list goes on (truncated) but gave no next_cursor"
            elif self._paging == "offset":
                offset = int(self.params.get("offset") or 0)
                reason = f"the API said the list goes on (truncated) but its page at offset {offset} was empty"
            elif self._max_limit is None:
                reason = "it returns one page and has no cursor or offset to reach the others"
            else:
                reason = f"it returns one page of at most {self._max_limit} items and has no cursor or offset to reach the others"
            self._short = reason
        return items

    def __next__(self) -> Any:
        while True:
            for item in self._items:
                identity = _identity(item)
                if identity in self._seen:
                    continue
                self._seen.add(identity)
                self.yielded += 1
                return item
            if self._done:
                if self._short is not None:
                    raise IncompleteListError(self.read, self.yielded, int(self.total or 0), self._short)
                raise StopIteration
            self._items = iter(self._next_page())
