"""The browser client's files, served over plain HTTP on the WebSocket port.

The page (``server/web/``: HTML, ES modules, CSS, the manifest and SVG icons) ships
inside the package, so ``solitaire serve`` needs no build step and no second port.
A GET without ``Upgrade: websocket`` is a page load; a WebSocket handshake on ``/``
goes on to the protocol as before.

What a browser expects of a static file server, and no more:

- each file with its content type; ``/`` is ``index.html``;
- a strong ``ETag`` (a hash of the file) and ``Cache-Control: no-cache``, so a
  browser keeps the files but asks each load whether they changed (a ``304`` without
  a body when not): the file names carry no version, and a new server must never
  leave an old page running against a new protocol;
- gzip when the request accepts it, compressed once per file, not per request;
- nothing outside ``server/web/`` and no hidden files: the names are the files
  found there at first use, looked up as they are, so ``..`` or an encoded slash
  cannot reach anything else; any other path is ``404``.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from email.utils import formatdate
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Final

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

WEB_ROOT: Final = Path(__file__).resolve().parents[1] / "web"

CONTENT_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}

# Compressing pays for text; a PNG is compressed already.
COMPRESSIBLE: Final = frozenset({".html", ".js", ".css", ".svg", ".webmanifest", ".json", ".txt"})


@dataclass(frozen=True)
class StaticFile:
    """One file of the page, read and compressed once."""

    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str


def load_files(root: Path) -> dict[str, StaticFile]:
    """Every servable file below ``root``, by its URL path (``/app.js``)."""
    files: dict[str, StaticFile] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or any(part.startswith(".") for part in relative.parts):
            continue
        content_type = CONTENT_TYPES.get(path.suffix)
        if content_type is None:
            continue
        body = path.read_bytes()
        gzipped = gzip.compress(body, 9, mtime=0) if path.suffix in COMPRESSIBLE else None
        if gzipped is not None and len(gzipped) >= len(body):
            gzipped = None
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        files["/" + relative.as_posix()] = StaticFile(body, gzipped, content_type, etag)
    files["/"] = files["/index.html"]
    return files


@cache
def shipped_files() -> dict[str, StaticFile]:
    """The files of ``server/web/``, read at the first page load of the process."""
    return load_files(WEB_ROOT)


def is_websocket_handshake(request: Request) -> bool:
    """Whether the request asks to become a WebSocket (then it is not a page load)."""
    return any("websocket" in value.lower() for value in request.headers.get_all("Upgrade"))


def respond(request: Request) -> Response | None:
    """The page's file for a plain GET, ``404`` for an unknown path, or ``None``
    for a WebSocket handshake, which the server then completes, and for a race's
    address (``/races/<id>``, server/transport/routing.py), which is a WebSocket's only:
    websockets answers a plain GET there with ``426 Upgrade Required``."""
    if is_websocket_handshake(request) or request.path.startswith("/races/"):
        return None
    return serve_file(shipped_files(), request)


def serve_file(files: dict[str, StaticFile], request: Request) -> Response:
    """The response to a GET of ``request.path`` from ``files``."""
    path = request.path.split("?", 1)[0].split("#", 1)[0]
    found = files.get(path)
    if found is None:
        return _plain(HTTPStatus.NOT_FOUND, b"not found\n")
    headers = Headers()
    headers["Date"] = formatdate(usegmt=True)
    headers["Cache-Control"] = "no-cache"
    headers["ETag"] = found.etag
    headers["Vary"] = "Accept-Encoding"
    headers["Content-Type"] = found.content_type
    headers["X-Content-Type-Options"] = "nosniff"
    if found.etag in _listed(request.headers.get("If-None-Match", "")):
        headers["Content-Length"] = "0"
        return Response(HTTPStatus.NOT_MODIFIED, HTTPStatus.NOT_MODIFIED.phrase, headers, b"")
    body = found.body
    if found.gzipped is not None and accepts_gzip(request.headers.get("Accept-Encoding", "")):
        body = found.gzipped
        headers["Content-Encoding"] = "gzip"
    headers["Content-Length"] = str(len(body))
    return Response(HTTPStatus.OK, HTTPStatus.OK.phrase, headers, body)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (``gzip;q=0`` refuses it)."""
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() not in ("gzip", "*"):
            continue
        quality = params.strip().lower().removeprefix("q=").strip()
        try:
            return not params or float(quality) > 0
        except ValueError:
            return False
    return False


def _listed(if_none_match: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}


def _plain(status: HTTPStatus, text: bytes) -> Response:
    headers = Headers()
    headers["Date"] = formatdate(usegmt=True)
    headers["Content-Type"] = "text/plain; charset=utf-8"
    headers["Content-Length"] = str(len(text))
    return Response(status, status.phrase, headers, text)
