"""A conforming scripted engine: the mock with no misbehaviour."""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from scripted import serve

    sys.exit(serve(sys.argv[1:]))
