"""The floor: a minimal MCPServer with one trivial tool on the same `mcp` version (start-up, memory, round trip)."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("floor")


@server.tool()
def ping(text: str = "pong") -> str:
    """Echo the text."""
    return text


if __name__ == "__main__":
    server.run("stdio")
