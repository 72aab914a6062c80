"""The store: everything the server keeps in PostgreSQL, and where PostgreSQL comes from.

asyncpg's errors become domain errors (``UnavailableError``, ``ConflictError``) at this
boundary; nothing above it writes SQL.
"""
