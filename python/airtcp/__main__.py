"""``python -m airtcp`` is the ``airtcp`` command."""

import sys

from .cli import main

sys.exit(main())
