// A small MCP server built with the official TypeScript SDK v2 (@modelcontextprotocol/server),
// which speaks the 2026-07-28 revision, for Loopscope's tests. It binds 127.0.0.1 only.
//
//     node ts_server.mjs --port 8124 [--legacy stateless|reject] [--auth ISSUER]
//
// `--legacy stateless` (the SDK's default) also serves 2025-era clients, statelessly;
// `--legacy reject` refuses them. Tools: a plain one, one that fails (isError), one that asks
// the client a question first (a multi round-trip request, answered by elicitation), and one
// whose `region` parameter is mirrored into an Mcp-Param-Region header (SEP-2243). CORS allows
// the page's headers, the 2026-07-28 ones included.
//
// `--auth ISSUER` makes it an OAuth-protected resource of that authorization server (in the
// tests, oidc-provider: auth_server.mjs), with the SDK's own pieces: Protected Resource Metadata
// (RFC 9728), and bearer tokens checked (a JWT from the issuer, for this server's URL, with
// notes:read); `add_note` needs notes:write too, and asks for it with a 403 (step-up).
import { createServer } from "node:http";
import { createRemoteJWKSet, jwtVerify } from "jose";
import {
  McpServer,
  OAuthError,
  acceptedContent,
  bearerAuthChallengeResponse,
  createMcpHandler,
  fromJsonSchema,
  getOAuthProtectedResourceMetadataUrl,
  inputRequired,
  oauthMetadataResponse,
  requireBearerAuth,
} from "@modelcontextprotocol/server";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const port = Number(arg("port"));
const legacy = arg("legacy", "stateless");
const issuer = arg("auth");
if (!port) throw new Error("--port is required");

const NOTES = {
  mcp: "MCP separates AI clients from tools: microservices for LLMs.",
  revision: "2026-07-28 has no initialize handshake and no session: every request says its version.",
};

function factory() {
  const server = new McpServer(
    { name: "loopscope-ts-notes", version: "2.3.1" },
    { instructions: "A notebook served by the TypeScript SDK v2 (MCP 2026-07-28)." },
  );
  server.registerTool(
    "search_notes",
    {
      description: "Search the notebook for a word.",
      inputSchema: fromJsonSchema({ type: "object", properties: { query: { type: "string" } }, required: ["query"] }),
    },
    async ({ query }) => {
      const hits = Object.entries(NOTES).filter(([k, v]) => (k + v).toLowerCase().includes(String(query).toLowerCase()));
      return { content: [{ type: "text", text: hits.length ? hits.map(([k, v]) => `${k}: ${v}`).join("\n") : `No note mentions "${query}".` }] };
    },
  );
  server.registerTool(
    "always_fails",
    { description: "A tool that fails, so the result comes back with isError: true.", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
    async () => ({ isError: true, content: [{ type: "text", text: "always_fails failed on purpose" }] }),
  );
  server.registerTool(
    "greet",
    { description: "Asks the user's name first (a multi round-trip request), then greets them.", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
    async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "who");
      if (!answer?.name) {
        return inputRequired({
          inputRequests: {
            who: inputRequired.elicit({
              message: "What is your name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            }),
          },
        });
      }
      return { content: [{ type: "text", text: `Hello, ${answer.name}!` }] };
    },
  );
  server.registerTool(
    "weather",
    {
      description: "The weather in a region (the region travels in an Mcp-Param-Region header too).",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" }, day: { type: "string" } },
        required: ["region"],
      }),
    },
    async ({ region }) => ({ content: [{ type: "text", text: `Sunny in ${region}.` }] }),
  );
  if (issuer) {
    server.registerTool(
      "add_note",
      {
        description: "Adds a note to the notebook (needs the notes:write scope).",
        inputSchema: fromJsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
      },
      async ({ text }) => {
        NOTES[`note${Object.keys(NOTES).length + 1}`] = String(text);
        return { content: [{ type: "text", text: `Added: ${text}` }] };
      },
    );
  }
  server.registerResource(
    "index",
    "notes://index",
    { mimeType: "text/plain", description: "The ids of every note." },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: Object.keys(NOTES).join("\n") }] }),
  );
  return server;
}

const handler = createMcpHandler(factory, { legacy });
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-expose-headers": "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate",
  "access-control-max-age": "600",
};

/// With --auth: the answer for a request without the token it needs, or null to serve it.
async function authorize(request, body) {
  if (!issuer) return null;
  const resource = new URL(`http://127.0.0.1:${port}/mcp`);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const gate = requireBearerAuth({ verifier, requiredScopes: ["notes:read"], resourceMetadataUrl, expectedResource: resource });
  const auth = await gate(request);
  if (auth instanceof Response) return auth;
  let message = {};
  try {
    message = JSON.parse(body.toString() || "{}");
  } catch {}
  if (message.method === "tools/call" && message.params?.name === "add_note" && !auth.scopes.includes("notes:write")) {
    const error = new OAuthError("insufficient_scope", "add_note needs the notes:write scope");
    return bearerAuthChallengeResponse(error, { requiredScopes: ["notes:write"], resourceMetadataUrl });
  }
  return null;
}

// Tokens are JWTs signed by the issuer, for this server (their audience).
const jwks = issuer ? createRemoteJWKSet(new URL(`${issuer}/jwks`)) : null;
const verifier = {
  async verifyAccessToken(token) {
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer });
      return {
        token,
        clientId: String(payload.client_id ?? ""),
        scopes: String(payload.scope ?? "").split(" ").filter(Boolean),
        expiresAt: payload.exp,
        resource: new URL(Array.isArray(payload.aud) ? payload.aud[0] : payload.aud),
      };
    } catch (e) {
      throw new OAuthError("invalid_token", `token refused: ${e.message}`);
    }
  },
};
// The authorization server has just started (testkit waits for its port): a refused connection
// here once failed a run (2026-12-08), so the first read is tried a few times, 200 ms apart.
async function issuerMetadata(url) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await fetch(url)).json();
    } catch (e) {
      if (attempt === 10) throw e;
      await new Promise((done) => setTimeout(done, 200));
    }
  }
}
const metadata = issuer
  ? { oauthMetadata: await issuerMetadata(`${issuer}/.well-known/openid-configuration`), resourceServerUrl: new URL(`http://127.0.0.1:${port}/mcp`), scopesSupported: ["notes:read"], resourceName: "Loopscope test notebook", dangerouslyAllowInsecureIssuerUrl: true }
  : null;

createServer(async (req, res) => {
  if (req.method === "OPTIONS") {
    // The preflight names the headers the request will carry (Mcp-Param-* vary per tool).
    res.writeHead(204, { ...CORS, "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*" });
    return res.end();
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).filter(([, v]) => typeof v === "string"),
    body: req.method === "GET" || req.method === "HEAD" || body.length === 0 ? undefined : body,
  });
  const response = (metadata && oauthMetadataResponse(request, metadata)) ?? (await authorize(request, body)) ?? (await handler.fetch(request));
  const headers = { ...CORS };
  response.headers.forEach((v, k) => (headers[k] = v));
  res.writeHead(response.status, headers);
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  res.on("close", () => reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}).listen(port, "127.0.0.1", () => console.log(`ready on ${port} (legacy: ${legacy})`));
