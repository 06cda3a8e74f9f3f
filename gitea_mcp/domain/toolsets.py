"""The toolsets an operator serves a subset of (GITEA_TOOLSETS): each tool belongs to exactly one, named in its SPEC
(toolkit/spec.py). Declared here, below the settings and the toolkit, as both read them.

A new toolset is one more name in `Toolset`; the order is the one `check`, `config` and the docs say them in.
"""

from __future__ import annotations

from typing import Literal, get_args

Toolset = Literal["issues", "labels", "milestones", "people"]
TOOLSETS: tuple[Toolset, ...] = get_args(Toolset)
