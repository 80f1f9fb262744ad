"""The student service: the HTTP door through which the school's App (its backend) sends students' messages to 小E.

Routes are thin doors: validate the request into a value, make one call into core (core.exchanges.StudentDesk),
return a typed response. Idempotency, rate limits and exactly-once delivery live in the database, where every
instance sees them. Never imported by core; `xiaoe serve` reaches it through the `xiaoe.commands` entry point.
"""
