"""`python -m gitea_mcp` runs the command line."""

import sys

from gitea_mcp.cli.main import main

sys.exit(main())
