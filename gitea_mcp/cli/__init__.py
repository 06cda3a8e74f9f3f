"""The command line: `main` reads flags and environment into Settings and runs one command module
(serve, demo, check, config, call: `add_arguments(parser)` and `run(ns) -> exit code` each), plus what the
commands print or start: client entries (config), the way this copy was installed (launch), a stdio client (demo).
Nothing here is imported by the layers below."""
