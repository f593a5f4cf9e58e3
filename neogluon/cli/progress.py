"""Progress bars: tqdm when it is installed and stderr is a terminal, plain lines otherwise."""
import sys


class _NoBar:
    """What the demo needs of a tqdm bar, for when tqdm is not installed."""

    def __init__(self, iterable):
        self._iterable = iterable

    def __iter__(self):
        return iter(self._iterable)

    def set_postfix(self, **kwargs):
        """tqdm's live statistics: nothing to show without a bar."""

    @staticmethod
    def write(line, file=None):
        print(line, file=file, flush=True)


def progress(iterable, desc, unit):
    """A bar over ``iterable`` that disappears when done (its ``write`` prints above it)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar(iterable)
    return tqdm(iterable, desc=desc, unit=unit, leave=False, dynamic_ncols=True, disable=None, file=sys.stderr)
