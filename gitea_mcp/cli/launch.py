"""How a client should start this very copy of the server: the way it was installed, found at run time.

`config CLIENT` writes a launch command into a client's file. The right one depends on how this copy came to be:
- an installed command (`pip install .` into a venv, `pipx install .`, a wheel): its absolute path, which the client
  can start whatever its PATH (GUI clients start servers with a short one);
- `python -m gitea_mcp` (a checkout): that interpreter's absolute path with `-m gitea_mcp`;
- `uvx --from <source>` (uv's cache is no place to point a client at): the same `uvx --from <source>` again;
- `uvx gitea-issues-mcp`: only once the package is on the public index (`--launcher uvx`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

DIST = "gitea-issues-mcp"
LAUNCHERS = ("installed", "python", "uvx")


@dataclass(frozen=True)
class Launch:
    command: str
    args: tuple[str, ...] = ()


def launch(kind: str = "installed", argv0: str | None = None, executable: str | None = None) -> Launch:
    """The command for `kind`: "installed" (how this copy runs now), "python" (this interpreter) or "uvx"."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    python = Launch(executable or sys.executable, ("-m", "gitea_mcp"))
    if kind == "python":
        return python
    if kind == "uvx" or _in_uv_cache(argv0):
        source = local_source()  # read from the installed metadata only when uvx needs it
        # By its full path, as a GUI client's short PATH may well not hold it; bare only when not found (said).
        uvx = shutil.which("uvx") or "uvx"
        return Launch(uvx, ("--from", source, DIST) if source else (DIST,))
    if Path(argv0).name.startswith(DIST) and Path(argv0).is_file():
        return Launch(os.path.abspath(argv0))  # not resolved: pipx's link survives an upgrade, its target may not
    return python


def local_source() -> str | None:
    """The directory this copy was installed from (PEP 610 direct_url.json), if it came from a local one."""
    try:
        raw = metadata.distribution(DIST).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not raw:
        return None
    url = str(json.loads(raw).get("url", ""))
    parts = urlsplit(url)
    return unquote(parts.path) if parts.scheme == "file" and Path(unquote(parts.path)).is_dir() else None


def _in_uv_cache(argv0: str) -> bool:
    """uvx runs a tool from an environment inside uv's cache, which uv may clean at any time."""
    parts = Path(os.path.abspath(argv0)).parts
    return any(part.startswith("archive-v") for part in parts) and "uv" in parts
