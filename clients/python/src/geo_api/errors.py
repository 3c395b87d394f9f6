"""The API's refusals as Python exceptions: one class per error code (docs/errors.md).

Every failure of a call raises a :class:`GeoApiError`; branch on its class or on ``.code``, never on
``.message`` (the API may reword it). A refusal the client does not know the code of (a code added to
the API after this client was released) is still a ``GeoApiError``, with that code.
"""

from __future__ import annotations

from typing import Dict, Optional, Type


class GeoApiError(Exception):
    """A call that did not succeed.

    Attributes:
        code: the API's stable error code (``rate_limited``...), or ``network_error`` when no answer
            came back, or ``unexpected_response`` when the answer was not the API's error body.
        status: the HTTP status, or None when no answer came back.
        message: the API's English text, for people; never match on it.
        param: the parameter to blame, on ``invalid_request`` when one is.
        request_id: the X-Request-Id of the call; quote it when reporting a problem.
        retry_after: the seconds the API asked to wait (Retry-After), where it said so.
    """

    #: The code this class stands for; None on the base class.
    error_code: Optional[str] = None

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: Optional[int] = None,
        param: Optional[str] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
    ) -> None:
        super().__init__(f"{code}: {message}" + (f" (param {param})" if param else ""))
        self.code = code
        self.message = message
        self.status = status
        self.param = param
        self.request_id = request_id
        self.retry_after = retry_after


class Unauthorized(GeoApiError):
    """401: the Authorization header is missing or malformed."""

    error_code = "unauthorized"


class KeyRevoked(GeoApiError):
    """401: the key was revoked, has expired, or its creator lost access. Only a new key helps."""

    error_code = "key_revoked"


class PlanRequired(GeoApiError):
    """403: the workspace's plan does not include the API."""

    error_code = "plan_required"


class AnalysisNotFound(GeoApiError):
    """404: the analysis does not exist or lies outside the key's reach (the same answer, on purpose)."""

    error_code = "analysis_not_found"


class NotFound(GeoApiError):
    """404: the group, run or answer does not exist inside the analysis."""

    error_code = "not_found"


class InvalidRequest(GeoApiError):
    """422: a value outside the read's rules, or an unknown or repeated parameter; ``param`` names it."""

    error_code = "invalid_request"


class CursorExpired(GeoApiError):
    """422: a cursor replayed under another scope or window; start again without a cursor."""

    error_code = "cursor_expired"


class RateLimited(GeoApiError):
    """429: the workspace's budget for this minute is spent; ``retry_after`` says how long to wait."""

    error_code = "rate_limited"


class InternalError(GeoApiError):
    """500: a fault on the service's side; report it with the request id."""

    error_code = "internal_error"


class RateLimitUnavailable(GeoApiError):
    """503: the budget counter or the reach check failed, so the call was refused; transient."""

    error_code = "rate_limit_unavailable"


class UpstreamTimeout(GeoApiError):
    """503: the measurement store did not answer in time (it wakes in about twenty seconds)."""

    error_code = "upstream_timeout"


class ApiDisabled(GeoApiError):
    """503: the whole API is switched off; ``retry_after`` gives the delay."""

    error_code = "api_disabled"


class NetworkError(GeoApiError):
    """No answer: the connection failed or timed out (``status`` is None)."""

    error_code = "network_error"


class UnexpectedResponse(GeoApiError):
    """An answer that is not the API's JSON (a proxy's page, a cut body)."""

    error_code = "unexpected_response"


class IncompleteListError(Exception):
    """``paginate`` reached the end of what the API lets it reach while the list still holds more.

    The last page said ``truncated`` and gave no way on: a one-page read such as ``list_runs``, whose
    largest page is smaller than the list. Raised after every item that was got has been yielded (a
    ``for`` loop has them all). Not a :class:`GeoApiError`: every call succeeded, what is missing is items.

    Attributes:
        read: the list read (``list_runs``).
        yielded: the items yielded, each once.
        total: the list's ``total`` as its last page stated it.
        reason: why no call can reach the rest, for people (it may be reworded).
    """

    def __init__(self, read: str, yielded: int, total: int, reason: str) -> None:
        super().__init__(f"{read} gave {yielded} of {total} items: {reason}")
        self.read = read
        self.yielded = yielded
        self.total = total
        self.reason = reason


#: The class of each error code the API answers.
ERROR_CLASSES: Dict[str, Type[GeoApiError]] = {
    cls.error_code: cls
    for cls in (
        Unauthorized,
        KeyRevoked,
        PlanRequired,
        AnalysisNotFound,
        NotFound,
        InvalidRequest,
        CursorExpired,
        RateLimited,
        InternalError,
        RateLimitUnavailable,
        UpstreamTimeout,
        ApiDisabled,
    )
    if cls.error_code is not None
}


def error_for(
    code: str,
    message: str,
    *,
    status: Optional[int] = None,
    param: Optional[str] = None,
    request_id: Optional[str] = None,
    retry_after: Optional[int] = None,
) -> GeoApiError:
    """The exception of a code: its own class, or GeoApiError for a code this client does not know."""
    cls = ERROR_CLASSES.get(code, GeoApiError)
    return cls(code, message, status=status, param=param, request_id=request_id, retry_after=retry_after)
