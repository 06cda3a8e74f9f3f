"""The MCP server: `app.build_server` puts the tools behind the SDK; `http` serves it as streamable HTTP."""
