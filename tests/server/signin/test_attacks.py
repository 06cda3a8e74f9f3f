"""The sign-in front attacked as issue 35 found it, in process against the stand-in's Gitea (which keeps PKCE as
Gitea 1.25.4 does: tests/contract/test_oauth.py). Each test performs one attack and says what stops it; the live
tests in tests/signin/ repeat findings 1, 11 and 16 against a real Gitea.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gitea_mcp.standin import StandIn
from tests.contract.oauth_flow import query_of
from tests.server.signin.flow_driver import PUBLIC, GiteaApp, Server, Signer, gitea_app


@pytest.fixture
def app(standin: StandIn) -> GiteaApp:
    return gitea_app(standin)  # a new application: the user's first sign-in meets Gitea's consent page


@pytest.fixture
def server(standin: StandIn, app: GiteaApp) -> Iterator[Server]:
    started = Server.start(standin, app)
    yield started
    started.close()


def _error_page(answer: Any, status: int) -> str:
    assert answer.status_code == status, answer.text[:300]
    assert "location" not in answer.headers and "Sign-in stopped" in answer.text
    return str(answer.text)


# -- finding 1: a Gitea code seen once, brought to the thief's own sign-in ------------------------------------------


@pytest.mark.parametrize("consented_before", [False, True], ids=["gitea-consent-page", "consent-given-before"])
def test_a_stolen_gitea_code_brought_to_the_thiefs_own_sign_in_is_refused(
    server: Server, standin: StandIn, consented_before: bool
) -> None:
    """The thief starts a sign-in of their own, in their own browser, and sends the victim's Gitea code (seen in a
    proxy log, a Referer, a shared screen) to /callback with the state of that sign-in. Our PKCE towards Gitea is
    per sign-in, with the method Gitea keeps on its consent page (plain, on 1.25.4), so Gitea refuses the code
    with the thief's verifier: the thief's client gets no code, and the victim's own sign-in still finishes."""
    victim, thief = Signer.new(server, standin), Signer.new(server, standin)
    if consented_before:
        victim.tokens()  # Gitea then sends a confidential application back at once, with the challenge asked
    mine = victim.start("victim-state")
    back = victim.to_callback(mine)  # Gitea's redirect to our /callback, seen on its way
    stolen = query_of(back)["code"]

    theirs = thief.start("thief-state")
    approved = thief.decide(theirs)  # the thief approves their own sign-in, and never signs in at Gitea
    thief_state = query_of(approved.headers["location"])["state"]
    answer = server.request("GET", f"/callback?code={stolen}&state={thief_state}", cookie=theirs.cookie)
    assert answer.status_code == 303
    told = query_of(answer.headers["location"])
    assert "code" not in told, "the thief's client was handed a code holding the victim's Gitea token"
    assert (told["error"], told["state"]) == ("access_denied", "thief-state")

    finished = victim.callback(back, mine.cookie)  # Gitea kept the code: a refused verifier does not spend it
    assert finished.status_code == 303 and query_of(finished.headers["location"])["code"].startswith("gmcp.k.")


def test_a_state_is_spent_by_its_callback_and_lives_five_minutes(server: Server, standin: StandIn) -> None:
    signer = Signer.new(server, standin)
    started = signer.start()
    back = signer.to_callback(started)
    assert signer.callback(back, started.cookie).status_code == 303
    assert "already finished" in _error_page(signer.callback(back, started.cookie), 400)

    late = signer.start()
    back = signer.to_callback(late)
    server.clock.advance(5 * 60 + 1)  # context.STATE_TTL: from Approve to Gitea's answer
    assert "expired" in _error_page(signer.callback(back, late.cookie), 400)
    assert back.startswith(PUBLIC)
