# `python -m interlace.routes ...` is `interlace routes ...` (test fixtures use it).
# Guarded so that importing the module (stubtest does) runs nothing.
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
