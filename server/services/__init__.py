"""The services: what the server does for each request, doing the I/O around the pure core.

Each service takes the pure rules (server/core/), the store (server/store/) and the
solver, and answers one family of requests; they are built and wired together once, at
startup (server/transport/app.py), and know nothing of sockets: a watcher of a race is
a ``Subscriber`` (``send(bytes)``).
"""
