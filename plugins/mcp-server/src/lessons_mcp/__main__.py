"""``python -m lessons_mcp``: run the server over stdio."""

import sys

from lessons_mcp.server import main

sys.exit(main())
