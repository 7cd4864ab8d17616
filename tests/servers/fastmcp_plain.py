"""The server a Python developer writes first, unchanged: FastMCP from the official SDK (1.x),
`mcp.run(transport="streamable-http")`, no CORS headers. Only the port comes from the command
line, so tests can run several. Reached from the page through `loopscope bridge --to`."""
import sys

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("plain-fastmcp", port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers"""
    return a + b


if __name__ == "__main__":
    mcp.run(transport="streamable-http")
