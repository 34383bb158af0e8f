"""``python -m twentyone``: the same as the ``twentyone`` command."""

import sys

from twentyone.cli import main

sys.exit(main())
