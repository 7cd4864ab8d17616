"""A small MCP server built with the official Python SDK 2.x (MCPServer), for Loopscope's tests.

The 2.x SDK is dual-era: a request carrying the 2026-07-28 envelope is served statelessly under
that revision, and an `initialize` handshake gets a 2025 session. Tools: a search, a sum, one
that fails (isError). It binds 127.0.0.1 only.

    python py2_server.py --port 8125
"""

import argparse

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.middleware.cors import CORSMiddleware

NOTES = {
    "mcp": "MCP separates AI clients from tools: microservices for LLMs.",
    "revision": "2026-07-28 has no initialize handshake and no session: every request says its version.",
}


def build() -> MCPServer:
    mcp = MCPServer(
        "loopscope-py2-notes",
        instructions="A notebook served by the Python SDK 2.x (MCP 2026-07-28 and 2025-11-25).",
        log_level="WARNING",
    )

    @mcp.tool()
    def search_notes(query: str) -> str:
        """Search the notebook. Returns every note whose id or text contains the query."""
        hits = [f"{k}: {v}" for k, v in NOTES.items() if query.lower() in (k + v).lower()]
        return "\n".join(hits) if hits else f"No note mentions {query!r}."

    @mcp.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    def always_fails(reason: str = "on purpose") -> str:
        """A tool that raises, so the result comes back with isError: true."""
        raise RuntimeError(f"always_fails failed {reason}")

    @mcp.resource("notes://index", mime_type="text/plain")
    def index() -> str:
        """The ids of every note."""
        return "\n".join(NOTES)

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    app = build().streamable_http_app()
    app.add_middleware(
        CORSMiddleware,
        allow_origins=["*"],
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["*"],
        expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"],
    )
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
