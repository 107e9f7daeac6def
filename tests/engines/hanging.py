"""An engine that never answers its first ``go`` (``--after N``: after N moves)."""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from scripted import serve

    sys.exit(serve(["--hang-at", "go", *sys.argv[1:]]))
