# `python -m interlace ...` is the `interlace` command.
import sys

from .cli import main

sys.exit(main())
