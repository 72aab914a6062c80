"""The transport: the WebSocket server, one connection's life, processes, routing, fan-out.

Only this layer knows websockets' types; it parses frames, finds the handler of each
request type (``handlers``), and sends what the services return.
"""
