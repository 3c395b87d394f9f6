"""Client of the GEO measurement API (docs/clients.md).

    from geo_api import Client
    geo = Client()  # GEO_API_KEY and GEO_BASE_URL from the environment
    me = geo.get_me()
    for answer in geo.paginate("list_answers", analysis="acme-core", window="30d"):
        ...
"""

from ._client import TRANSIENT_CODES, Client, Pager, RateLimit, Wait, __version__
from ._generated import ERROR_CODES, READS
from .errors import (
    ERROR_CLASSES,
    AnalysisNotFound,
    ApiDisabled,
    CursorExpired,
    GeoApiError,
    IncompleteListError,
    InternalError,
    InvalidRequest,
    KeyRevoked,
    NetworkError,
    NotFound,
    PlanRequired,
    RateLimited,
    RateLimitUnavailable,
    Unauthorized,
    UnexpectedResponse,
    UpstreamTimeout,
)
from .rows import flatten, to_csv, to_rows

__all__ = [
    "ERROR_CLASSES",
    "ERROR_CODES",
    "READS",
    "TRANSIENT_CODES",
    "AnalysisNotFound",
    "ApiDisabled",
    "Client",
    "CursorExpired",
    "GeoApiError",
    "IncompleteListError",
    "InternalError",
    "InvalidRequest",
    "KeyRevoked",
    "NetworkError",
    "NotFound",
    "Pager",
    "PlanRequired",
    "RateLimit",
    "RateLimitUnavailable",
    "RateLimited",
    "Unauthorized",
    "UnexpectedResponse",
    "UpstreamTimeout",
    "Wait",
    "__version__",
    "flatten",
    "to_csv",
    "to_rows",
]
