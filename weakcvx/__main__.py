"""``python -m weakcvx``: the ``weakcvx`` command (:mod:`weakcvx.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
