"""The server's pure rules: no sockets, no database, no clock of their own.

Data in, decisions and events out; every time is passed in as ``now``. The services
(server/services/) do the I/O around them, so everything here is tested without either.
"""
