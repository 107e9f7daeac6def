"""An engine that answers ``go`` with an illegal move (``--after N``: after N honest ones)."""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from scripted import serve

    sys.exit(serve(["--cheat", "illegal", *sys.argv[1:]]))
