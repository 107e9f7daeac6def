"""An engine that exits (status 3) on its first ``go`` (``--after N``: after N moves)."""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from scripted import serve

    sys.exit(serve(["--crash-at", "go", *sys.argv[1:]]))
