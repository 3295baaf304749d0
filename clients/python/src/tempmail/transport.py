"""One HTTP exchange, over the standard library's urllib: the only place the client touches the network."""

import http.client
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Optional, Tuple


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    headers: Dict[str, str]
    body: Optional[bytes]
    #: Seconds this exchange may take.
    timeout: float
    #: The most body bytes the caller accepts; a transport reads at most one byte more, so a longer body is known without reading it all.
    max_body: int = 10 * 1024 * 1024


@dataclass(frozen=True)
class HttpResponse:
    status: int
    #: Header names lower-cased.
    headers: Dict[str, str] = field(default_factory=dict)
    body: bytes = b""


class TransportError(Exception):
    """The exchange failed before an answer came: refused, reset, or timed out (``timed_out``)."""

    def __init__(self, reason: str, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.timed_out = timed_out


#: What the client sends its requests through; tests give a fake one.
Transport = Callable[[HttpRequest], HttpResponse]


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """
    Follows no redirect: the 3xx itself is the answer. urllib's default handler follows one to any
    host with the request's headers (``Authorization`` included) and turns a POST into a GET; the
    contract never redirects, so the client reports a 3xx as an error instead.
    """

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())


def urllib_transport(request: HttpRequest) -> HttpResponse:
    """
    Sends a request with urllib; every HTTP status is an answer (a 3xx too: no redirect is
    followed), only a failed exchange raises ``TransportError``. Reads at most ``max_body + 1``
    bytes of the body.
    """
    outgoing = urllib.request.Request(request.url, data=request.body, headers=request.headers, method=request.method)
    try:
        with _OPENER.open(outgoing, timeout=request.timeout) as answer:
            return HttpResponse(answer.status, _lower(answer.headers.items()), answer.read(request.max_body + 1))
    except urllib.error.HTTPError as answer:
        with answer:
            return HttpResponse(answer.code, _lower(answer.headers.items()), answer.read(request.max_body + 1))
    except urllib.error.URLError as error:
        raise TransportError(str(error.reason), isinstance(error.reason, socket.timeout)) from error
    except socket.timeout as error:
        raise TransportError("timed out", True) from error
    except (OSError, http.client.HTTPException) as error:
        raise TransportError(f"{type(error).__name__}: {error}") from error


def _lower(headers: Iterable[Tuple[str, str]]) -> Dict[str, str]:
    return {name.lower(): value for name, value in headers}
