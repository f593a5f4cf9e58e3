"""``python -m neogluon``: the ``neogluon`` command (see ``neogluon.cli``)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m neogluon"))
