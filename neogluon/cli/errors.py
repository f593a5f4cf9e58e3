"""The one exception the subcommands raise for a user's mistake."""


class CLIError(Exception):
    """A mistake in the command line or its files: printed as one line on stderr, exit code 2
    (or ``code``), never with a traceback."""

    def __init__(self, message, code=2, prog=None):
        super().__init__(message)
        self.code = code
        self.prog = prog
