"""What every tool shares: its dependencies, argument checks, and the error boundary."""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcp_types import CallToolResult, Tool, ToolAnnotations
from pydantic import BaseModel, ValidationError

from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import Forbidden, GiteaError, Moved
from gitea_mcp.toolkit import envelope, lockdown, scopes
from gitea_mcp.toolkit.arguments import Arguments, compact_schema, described, inline_defs, input_schema, parse
from gitea_mcp.toolkit.lockdown import Authored, Decision, Lockdown
from gitea_mcp.toolkit.spec import ToolSpec

if TYPE_CHECKING:
    from gitea_mcp.gitea.models import Issue
    from gitea_mcp.toolkit.shared_flight import SharedFlights

log = logging.getLogger("gitea_mcp.tools")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Deps:
    """Injected into every tool: tests pass their own client, the server passes the configured one."""

    client: GiteaClient
    policy: Policy
    catalog: Catalog = field(default_factory=Catalog)
    now: Callable[[], datetime] = field(default=utc_now)  # the clock the duplicate window reads; tests set it
    flights: SharedFlights | None = None  # the write guard replicas share (GITEA_MCP_REDIS_URL), if set
    # The scopes a signed-in caller's client was granted (our sign-in); None for a token Gitea alone judges.
    granted: tuple[str, ...] | None = None
    # Lockdown for public forges (GITEA_LOCKDOWN), the operator's alone: None when off (toolkit/lockdown.py).
    lockdown: Lockdown | None = None

    # Off (no lockdown), each of these returns at once without entering toolkit/lockdown.py: the call path of a
    # server without lockdown is as it was (tests/server/test_call_path.py).

    def screening(self, authored: Iterable[tuple[str, Authored]]) -> Decision:
        """What the answer may show of `authored` (each with its repository, `owner/name`) under lockdown."""
        return lockdown.OFF if self.lockdown is None else lockdown.decide(self.client, self.lockdown, authored)

    def ahead(self, repo: str) -> None:
        """Under lockdown, what its decision needs of `repo` whoever wrote there, read in the caller's own round."""
        if self.lockdown is not None:
            lockdown.ahead(self.client, self.lockdown, repo)

    def screen_issues(self, here: str, listed: Sequence[Issue]) -> list[Issue]:
        """Issues as an answer may show them under lockdown: titles of those opened by non-writers marked."""
        return list(listed) if self.lockdown is None else lockdown.issues(self.client, self.lockdown, here, listed)

    def until(self, deadline: float) -> Deps:
        """The same, for one call that must end by `deadline` (its client keeps every request within it)."""
        return dataclasses.replace(self, client=self.client.until(deadline))


def guard(call: Callable[[], CallToolResult], tool: ToolSpec, deps: Deps) -> CallToolResult:
    """Turn every failure into an `isError` result: our own messages as they are, anything else generic. The call's
    deadline is not opened here: `ToolDefinition.call` gave `deps` its client bound to it."""
    try:
        return call()
    except Moved as exc:  # where it moved may be named only inside the allowlist
        return envelope.error(exc.advice(deps.policy.allows))
    except Forbidden as exc:
        scope = exc.missing_scope  # the whole set this tool needs, not Gitea's one scope at a time
        return envelope.error(scopes.lacking(tool, scope, exc.token_scopes) if scope else str(exc))
    except (ToolFailure, GiteaError) as exc:  # a refusal of ours, or Gitea's answer in words
        return envelope.error(str(exc), bad_argument=isinstance(exc, BadArgument))
    except Exception as exc:
        # Unexpected: keep the details in the server's log (stderr), give the model a usable sentence.
        log.exception("%s failed unexpectedly", tool.name)
        return failed_inside(tool.name, exc)


def failed_inside(tool: str, exc: Exception) -> CallToolResult:
    return envelope.error(f"{tool} failed inside gitea_mcp ({type(exc).__name__}); the server log has details.")


@dataclass(frozen=True)
class ToolDefinition:
    """A tool as a value: its spec, its arguments (declared once, as a model), its result model and its handler."""

    spec: ToolSpec
    args: type[Arguments]
    result: type[BaseModel]
    run: Callable[[Deps, Any], CallToolResult]

    def call(self, deps: Deps, arguments: Mapping[str, Any], deadline: float | None = None) -> CallToolResult:
        """The tool as an agent calls it: raw arguments in, a result or an isError sentence out.

        The whole call keeps to one deadline (a `time.monotonic()`), opened where the call is received and carried
        in `deps.client`: however many requests a tool makes, and whatever the retries, it answers in bounded time.
        The server opens it when the call arrives (time waiting for a thread counts); None opens it now, a few
        GITEA_TIMEOUTs ahead (`GiteaClient.call_budget`)."""
        if deadline is None:
            deadline = time.monotonic() + deps.client.call_budget
        deps = deps.until(deadline)
        try:
            args = parse(self.spec.name, self.args, arguments)
        except ToolFailure as exc:
            return envelope.error(str(exc), bad_argument=isinstance(exc, BadArgument))
        return self.run(deps, args)

    def listing(self) -> Tool:
        """The tool as tools/list shows it, schemas trimmed: every agent re-reads them on every turn."""
        return Tool(
            name=self.spec.name,
            description=described(self.spec.description, self.args),
            input_schema=input_schema(self.args),
            output_schema=output_schema(self.result),
            annotations=ToolAnnotations(
                read_only_hint=not self.spec.writes,
                destructive_hint=self.spec.destructive,
                idempotent_hint=self.spec.idempotent,
                open_world_hint=True,
            ),
        )

    def served(self, deps: Deps, arguments: Mapping[str, Any], deadline: float | None = None) -> CallToolResult:
        """`call` as the server answers it: a result whose structured content does not fit the published output
        schema is a bug of ours, said as one, never sent (a client validating it would refuse the whole result)."""
        result = self.call(deps, arguments, deadline)
        if not result.is_error:
            try:
                self.result.model_validate(result.structured_content)
            except ValidationError as exc:
                log.exception("%s returned content that does not fit its output schema", self.spec.name)
                return failed_inside(self.spec.name, exc)
        return result


@functools.cache
def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """For clients validating structuredContent; the model reads the text, so no prose here."""
    schema: dict[str, Any] = compact_schema(inline_defs(model.model_json_schema()), drop=("description",))
    return schema
