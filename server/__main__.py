"""``python -m server``: the same as ``solitaire serve``."""

import sys

from server.ops.cli import main

sys.exit(main(["serve", *sys.argv[1:]]))
