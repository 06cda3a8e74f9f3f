"""Spans recorded in memory (OpenTelemetry's InMemorySpanExporter) for the tests of traces (issue 38).

A process has one global tracer provider, set once: it is installed on first use and records only while a test
holds `recording()`, so tests elsewhere in the process pay nothing and see nothing. Our spans are on only then too
(`gitea.traces.switch`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gitea_mcp.gitea import traces


class _WhileRecording(SpanProcessor):
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.on = False

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        pass

    def on_end(self, span: ReadableSpan) -> None:
        if self.on:
            self.exporter.export([span])


_LOCK = threading.Lock()
_PROCESSOR: list[_WhileRecording] = []


def _processor() -> _WhileRecording:
    with _LOCK:
        if not _PROCESSOR:
            processor = _WhileRecording()
            provider = TracerProvider()
            provider.add_span_processor(processor)
            trace.set_tracer_provider(provider)
            _PROCESSOR.append(processor)
        return _PROCESSOR[0]


@contextlib.contextmanager
def recording() -> Iterator[InMemorySpanExporter]:
    """The spans ended meanwhile, with this package's spans on."""
    processor = _processor()
    processor.exporter.clear()
    processor.on = True
    traces.switch(True)
    try:
        yield processor.exporter
    finally:
        traces.switch(False)
        processor.on = False
