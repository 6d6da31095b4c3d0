"""Errors meant for the person at the terminal: one line, no traceback.

Kept in its own module so `python -m service.cli` (which loads cli.py a second time as
`__main__`) and the commands agree on one class.
"""


class UserError(Exception):
    """An error whose message is meant for the person at the terminal, not a traceback."""
