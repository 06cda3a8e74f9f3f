"""The stdio guard's parts in-process (gitea_mcp.server.stdio): the id of a line no parser reads, and whole lines
on the wire. The attack itself, over a real process: tests/e2e/test_process_edge.py."""

from __future__ import annotations

import io
import os

import pytest

from gitea_mcp.server.stdio import ID_WITHIN, Lines, Stray, Wire, request_id


@pytest.mark.parametrize(
    ("line", "found"),
    [
        pytest.param(b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": {', 7, id="number-then-cut"),
        pytest.param(b'{"id":"a-1","method":"x"}', "a-1", id="string"),
        pytest.param(b'{"method":"x","params":{"id":5,"more":[{"id":4}]},"id":6', 6, id="nested-ids-skipped"),
        pytest.param(b'{"method":"x","params":{"id":5}', None, id="only-nested"),
        pytest.param(b'{"id"  :  12 , "method": "x"', 12, id="spaces"),
        pytest.param(b'{"id": true}', None, id="not-an-id-type"),
        pytest.param(b'{"id": 1.5}', None, id="not-whole"),
        pytest.param(b'{"id": "\\u00e9"}', "\u00e9", id="escaped"),
        pytest.param(b'[{"id": 3}]', None, id="not-an-object"),
        pytest.param(b'{"params": "' + b"x" * ID_WITHIN + b'", "id": 9}', None, id="past-the-window"),
        pytest.param(b'{"a": ' + b"[" * 10_000 + b', "id": 3', None, id="deep-before-it"),
    ],
)
def test_the_id_of_a_line_no_parser_reads(line: bytes, found: object) -> None:
    assert request_id(line) == found


def test_an_answer_never_lands_inside_a_line_being_written() -> None:
    read, write = os.pipe()
    try:
        wire = Wire(write)
        wire.write(b'{"jsonrpc": "2.0", "id": 1, ')  # the SDK's answer, half written
        wire.line(b'{"error": "refused"}\n')
        wire.write(b'"result": {}}\n')
        assert os.read(read, 4096) == b'{"error": "refused"}\n{"jsonrpc": "2.0", "id": 1, "result": {}}\n'
    finally:
        os.close(read)
        os.close(write)


def test_lines_pass_messages_and_answer_the_rest(capfd: pytest.CaptureFixture[str]) -> None:
    read, write = os.pipe()
    try:
        ping = b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}\n'
        source = io.BytesIO(b"\n" + b'{"jsonrpc": "2.0", "id": 1, "method": \n' + ping)
        lines = io.BufferedReader(Lines(source, Wire(write)))
        assert lines.read() == ping, "the blank line dropped, the broken one answered, the message passed"
        answer = os.read(read, 4096)
        assert answer.startswith(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32700,') and answer.endswith(b"}\n")
    finally:
        os.close(read)
        os.close(write)


def test_a_stray_print_goes_to_stderr_not_the_wire(capfd: pytest.CaptureFixture[str]) -> None:
    read, write = os.pipe()
    try:
        print("stray", file=Stray(Wire(write), encoding="utf-8"))
        os.write(write, b"-")
        assert os.read(read, 4096) == b"-" and capfd.readouterr().err == "stray\n"
    finally:
        os.close(read)
        os.close(write)
