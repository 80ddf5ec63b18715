# `python -m interlace.routes ...` is `interlace routes ...` (test fixtures use it).
import sys

from .cli import main

sys.exit(main())
