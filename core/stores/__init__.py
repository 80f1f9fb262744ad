"""Persistence: the database and its migrations, the review queue, accounts, sessions, audit,
saved defaults, the glossary store. The only package that opens database sessions."""
