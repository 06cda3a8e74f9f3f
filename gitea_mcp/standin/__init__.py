"""A Gitea stand-in: a real HTTP server on 127.0.0.1 speaking Gitea's REST API v1, in memory.

For end-to-end tests, the demo and benchmarks. It reproduces the real server's semantics (docs/server-behaviour.md):
mixed issues and pull requests, all-of label filters that drop unknown names, silent limit clamps,
X-Total-Count and Link, Go-worded errors, scopes, private repositories that are invisible, a renamed
repository that redirects. Faults (`Fault`) simulate a misbehaving forge or proxy.

    with StandIn() as forge:
        requests.get(f"{forge.url}/api/v1/repos/acme/widgets/issues", headers={"Authorization": f"token {DEMO_TOKEN}"})

It answers as one release (`profile.Profile`, Gitea 1.25.4 by default; `PROFILES` names the releases the
contract suite covers): `StandIn(profile=PROFILES["gitea-1.22"])`.

Modules: `server` (HTTP, recording, faults), `api` (auth, routing, scopes), `endpoints` (each endpoint's
rules, by resource), `core` (Go-style parameters, JSON binding, paging), `render` (Gitea's JSON), `store` (the
data and the issue indexer's filters), `keyword` (how each indexer matches `q`), `profile` (what differs by
release), `data` (the seed dataset and its tokens), `gotime` (Go's RFC 3339 errors), `oauth` (Gitea's OAuth2
provider: sign-in, authorize and consent, token, refresh; docs/server-behaviour.md).
"""

from gitea_mcp.standin.data import (
    ALICE_TOKEN,
    CAROL_TOKEN,
    DEMO_ALL_TOKEN,
    DEMO_PUBLIC_TOKEN,
    DEMO_READ_TOKEN,
    DEMO_TOKEN,
    DEMO_USER_TOKEN,
    LONG_BODY_ISSUE,
    MANY_COMMENTS_COUNT,
    MANY_COMMENTS_ISSUE,
    NEWLINE_TITLE_ISSUE,
    PIPE_TITLE_ISSUE,
    PULL_EVERY,
    REVIEWED_PULL,
    TOKENS,
    UNICODE_TITLE_ISSUE,
    WIDGETS_COUNT,
)
from gitea_mcp.standin.http import Fault, RecordedRequest, StandIn
from gitea_mcp.standin.profile import DEFAULT_VERSION, PROFILES, Profile
from gitea_mcp.standin.store import Store

GITEA_VERSION = DEFAULT_VERSION  # what /version reports by default

__all__ = [
    "ALICE_TOKEN",
    "CAROL_TOKEN",
    "DEMO_ALL_TOKEN",
    "DEMO_PUBLIC_TOKEN",
    "DEMO_READ_TOKEN",
    "DEMO_TOKEN",
    "DEMO_USER_TOKEN",
    "GITEA_VERSION",
    "LONG_BODY_ISSUE",
    "MANY_COMMENTS_COUNT",
    "MANY_COMMENTS_ISSUE",
    "NEWLINE_TITLE_ISSUE",
    "PIPE_TITLE_ISSUE",
    "PROFILES",
    "PULL_EVERY",
    "REVIEWED_PULL",
    "TOKENS",
    "UNICODE_TITLE_ISSUE",
    "WIDGETS_COUNT",
    "Fault",
    "Profile",
    "RecordedRequest",
    "StandIn",
    "Store",
]
