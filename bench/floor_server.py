"""The floor: a minimal MCPServer with one trivial tool on the same `mcp` version (start-up, memory, round trip)."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("floor")


@server.tool()
def ping(text: str = "pong", times: int = 1) -> str:
    """Echo the text, `times` over (the cpu section's answer the size of a 50-row issue_list's text)."""
    return text * times


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 2 and sys.argv[1] == "http":  # `floor_server.py http PORT`: stateless JSON, as ours serves
        server.run("streamable-http", port=int(sys.argv[2]), stateless_http=True, json_response=True)
    else:
        server.run("stdio")
