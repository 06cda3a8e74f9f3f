"""Subcommands of the command line, one module each: `add_arguments(parser)` and `run(ns) -> exit code`."""
