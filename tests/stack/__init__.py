"""The local federation stack: upstream binaries built from Go modules and run as plain processes.

``python -m tests.stack build|up|down|status|env`` (see ``__main__.py``).
"""
