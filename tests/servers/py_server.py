"""A small MCP server built with the official Python SDK (FastMCP), for Loopscope's tests.

It has what the tests need from a real server: tools (one that raises, one slow one that
reports progress), a resource, a resource template and a prompt. It binds 127.0.0.1 only.

    python py_server.py --port 8123 [--mode sse|json|stateless] [--no-cors]

Modes: `sse` (the SDK default: sessions, SSE responses), `json` (json_response=True) and
`stateless` (stateless_http=True). CORS is on unless --no-cors, which gives the browser a real
server that it is not allowed to read (the CORS failure the UI must explain).
"""

import argparse
import asyncio

import uvicorn
from mcp.server.fastmcp import Context, FastMCP
from starlette.middleware.cors import CORSMiddleware

NOTES = {
    "mcp": "MCP separates AI clients from tools: microservices for LLMs.",
    "jsonrpc": "JSON-RPC 2.0 is a strict contract: jsonrpc, method, params, id.",
    "tool_result": "Every tool_use needs a tool_result in the next user message.",
}


def build(mode: str) -> FastMCP:
    mcp = FastMCP(
        "loopscope-notes",
        instructions="A tiny notebook about MCP. Use search_notes before answering questions about MCP.",
        host="127.0.0.1",
        json_response=(mode == "json"),
        stateless_http=(mode == "stateless"),
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

    @mcp.tool()
    async def slow_count(steps: int = 3, delay_ms: int = 200, ctx: Context = None) -> str:
        """Count slowly, reporting progress after each step."""
        steps = max(1, min(steps, 50))
        for i in range(steps):
            await asyncio.sleep(max(0, min(delay_ms, 5000)) / 1000)
            await ctx.report_progress(i + 1, steps, f"step {i + 1} of {steps}")
        return f"counted to {steps}"

    @mcp.resource("notes://index", mime_type="text/plain")
    def index() -> str:
        """The ids of every note."""
        return "\n".join(NOTES)

    @mcp.resource("notes://{note_id}", mime_type="text/plain")
    def note(note_id: str) -> str:
        """One note by id."""
        if note_id not in NOTES:
            raise ValueError(f"no note {note_id!r}")
        return NOTES[note_id]

    @mcp.prompt()
    def explain(topic: str, audience: str = "developers") -> str:
        """Ask for an explanation of a topic from the notebook."""
        return f"Explain {topic} to {audience}, using search_notes first."

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["sse", "json", "stateless"], default="sse")
    parser.add_argument("--no-cors", action="store_true")
    args = parser.parse_args()

    app = build(args.mode).streamable_http_app()
    if not args.no_cors:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=["*"],
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=["Content-Type", "Accept", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"],
            expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"],
        )
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
