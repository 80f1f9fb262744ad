"""Students' messages through the one Assistant: the release policy (send now, or hold for a consultant), the desk
that answers a message exactly once and records it, and the console's release of what was held.

Nothing here speaks HTTP: the service (the top-level `service` package) is a thin door that validates a request,
calls `StudentDesk`, and returns its value.
"""
