"""check's lockdown lines: whether lockdown is on, and for each allowed owner whether this token can confirm write
access there, or would withhold what it cannot confirm (docs/operators.md, "Lockdown for public forges").

What lockdown reads (gitea/permissions.py), and what each needs (Gitea 1.25.4, Forgejo 12.0.4): a user's role in a
repository needs read:repository and the repository's admin role (an organisation's owners have it) or a site
admin's token; a repository's teams any reader with read:repository; a team's members read:organization and
membership of the organisation (a site admin's token too). The role probe asks about the repository's owner, a
login that exists (Forgejo 12.0.4 looks the user up before it checks the token, Gitea 1.25.4 after): 403 for a
token that may not ask, 200 for one that may; nothing is changed.
"""

from __future__ import annotations

from collections.abc import Iterator

from gitea_mcp.cli.lines import Line, lacks_scope
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit.render import counted

FIX = (
    "give lockdown a token of a site admin, or of a member of the organisation's Owners team, with read:repository "
    "and read:organization (besides the tools' scopes); what it cannot confirm it withholds"
)


def lockdown_checks(settings: Settings, client: GiteaClient) -> Iterator[Line]:
    if not settings.lockdown:
        yield Line("skip", "lockdown: off (GITEA_LOCKDOWN): agents read what any author wrote")
        return
    named = settings.lockdown_trusted
    also = f", and the {counted(len(named), 'login')} GITEA_LOCKDOWN_TRUSTED names" if named else ""
    yield Line("ok", f"lockdown: on: texts by users without write access are withheld; trusted: writers{also}")
    if settings.allow_all_owners:
        yield Line("warn", "lockdown: GITEA_ALLOWED_OWNERS='*', so what this token can confirm is checked nowhere", FIX)
        return
    for owner in sorted(settings.allowed_owners):
        yield _owner(client, owner)


def _owner(client: GiteaClient, owner: str) -> Line:
    # why: Gitea's models (~10 ms), which every command's start-up would pay (the modules are imported for --help)
    from gitea_mcp.gitea import permissions

    repo = _a_repository(client, owner)
    if repo is None:
        return Line("skip", f"lockdown, owner {owner}: no repository with issues visible to this token, not checked")
    o, r = repo
    where = f"lockdown, {o}/{r}"
    role = permissions.role(client, o, r, o)
    teams = permissions.writer_teams(client, o, r)
    lacking: list[str] = []
    if isinstance(role, GiteaError):
        lacking.append(
            "users' roles (it needs read:repository)"
            if lacks_scope(role)
            else "users' roles (it needs the repository's admin role or a site admin's token)"
        )
    members: frozenset[str] | GiteaError | None = None
    if isinstance(teams, GiteaError):
        lacking.append("the repository's teams (it needs read:repository)")
    elif teams:
        members = permissions.members(client, teams[0])
        if isinstance(members, GiteaError):
            lacking.append(
                "its writer teams' members (it needs read:organization)"
                if lacks_scope(members)
                else "its writer teams' members (it needs membership of the organisation, or a site admin's token)"
            )
    if lacking:
        return Line("warn", f"{where}: this token cannot read {' or '.join(lacking)}: their texts are withheld", FIX)
    if teams is None:
        return Line("ok", f"{where}: this token reads users' roles (a user's repository: no teams)")
    if not teams:
        return Line("ok", f"{where}: this token reads users' roles; no team writes its issues")
    return Line("ok", f"{where}: this token reads users' roles and the members of its writer teams")


def _a_repository(client: GiteaClient, owner: str) -> tuple[str, str] | None:
    """One of the owner's repositories, by its newest issue the token can see (the search needs only read:issue)."""
    try:
        rows = client.get(["repos", "issues", "search"], {"owner": owner, "limit": 1, "state": "all"}).data
    except GiteaError:
        return None
    for row in rows if isinstance(rows, list) else []:
        full = row.get("repository", {}).get("full_name", "") if isinstance(row, dict) else ""
        o, _, r = str(full).partition("/")
        if o and r:
            return o, r
    return None
