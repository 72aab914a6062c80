"""The browser client's files over plain HTTP on the WebSocket port (server/transport/static.py)."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
from pathlib import Path

import pytest
from arena_client import Connect

from server.transport.app import ArenaServer
from server.transport.static import WEB_ROOT, accepts_gzip, load_files

Answer = tuple[int, dict[str, str], bytes]


def fetch(port: int, path: str, headers: dict[str, str] | None = None) -> Answer:
    """A GET of ``path`` exactly as written (no normalisation of ``..``)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


async def get(server: ArenaServer, path: str, **headers: str) -> Answer:
    named = {name.replace("_", "-"): value for name, value in headers.items()}
    return await asyncio.to_thread(fetch, server.port, path, named)


async def test_the_page_is_served_at_the_root(server: ArenaServer) -> None:
    status, headers, body = await get(server, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert b'<script type="module" src="/app.js">' in body
    assert body == (WEB_ROOT / "index.html").read_bytes()
    assert headers["cache-control"] == "no-cache"
    assert headers["etag"].startswith('"')


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/board.js", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/icon.svg", "image/svg+xml"),
        ("/manifest.webmanifest", "application/manifest+json"),
    ],
)
async def test_each_file_has_its_content_type(
    server: ArenaServer, path: str, content_type: str
) -> None:
    status, headers, body = await get(server, path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert body == (WEB_ROOT / path.lstrip("/")).read_bytes()
    assert headers["x-content-type-options"] == "nosniff"


async def test_the_manifest_names_its_icons(server: ArenaServer) -> None:
    _, _, body = await get(server, "/manifest.webmanifest")
    manifest = json.loads(body)
    for icon in manifest["icons"]:
        status, _, _ = await get(server, icon["src"])
        assert status == 200, icon


async def test_gzip_when_the_browser_accepts_it(server: ArenaServer) -> None:
    plain = (WEB_ROOT / "board.js").read_bytes()
    status, headers, body = await get(server, "/board.js", accept_encoding="gzip, deflate, br")
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(body) < len(plain)
    assert gzip.decompress(body) == plain

    _, refused, body = await get(server, "/board.js", accept_encoding="gzip;q=0, identity")
    assert "content-encoding" not in refused
    assert body == plain


async def test_an_unchanged_file_is_not_sent_again(server: ArenaServer) -> None:
    _, headers, _ = await get(server, "/style.css")
    status, again, body = await get(server, "/style.css", if_none_match=headers["etag"])
    assert status == 304
    assert body == b""
    assert again["etag"] == headers["etag"]

    status, _, body = await get(server, "/style.css", if_none_match='"stale"')
    assert status == 200
    assert body == (WEB_ROOT / "style.css").read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/nothing-here.js",
        "/../server/transport/app.py",
        "/..%2fapp.py",
        "/%2e%2e/app.py",
        "/web/index.html",
        "//etc/passwd",
        "/static.py",
        "/index.html/",
    ],
)
async def test_unknown_paths_and_traversal_are_not_found(server: ArenaServer, path: str) -> None:
    status, headers, body = await get(server, path)
    assert status == 404
    assert body == b"not found\n"
    assert headers["content-type"].startswith("text/plain")


async def test_the_websocket_on_the_root_still_speaks_the_protocol(connect: Connect) -> None:
    client = await connect(name="Ann")
    assert client.welcome["type"] == "welcome"
    reply = await client.ok("practice", variant="klondike", seed=7)
    assert reply["view"]["variant"] == "klondike"


async def test_health_and_metrics_keep_their_paths(server: ArenaServer) -> None:
    status, _, body = await get(server, "/healthz")
    assert (status, body) == (200, b"ok\n")
    status, headers, _ = await get(server, "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain; version=0.0.4")


def test_only_known_types_and_no_hidden_files_are_served(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / ".secret.js").write_text("no")
    (tmp_path / "notes.py").write_text("no")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config.txt").write_text("no")
    (tmp_path / "icons").mkdir()
    (tmp_path / "icons" / "a.svg").write_text("<svg/>")
    files = load_files(tmp_path)
    assert sorted(files) == ["/", "/icons/a.svg", "/index.html"]
    assert files["/"] is files["/index.html"]


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("GZIP", True),
        ("*", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0, br", False),
        ("br, deflate", False),
        ("", False),
        ("gzip;q=bogus", False),
    ],
)
def test_accept_encoding(header: str, accepted: bool) -> None:
    assert accepts_gzip(header) is accepted
