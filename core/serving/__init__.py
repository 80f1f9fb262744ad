"""Serving a live console: the index holder that follows the database-held corpus in the background."""
