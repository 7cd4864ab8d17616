// A real OAuth 2.1 authorization server for Loopscope's tests: oidc-provider (npm, pinned in
// package.json), configured as an MCP server's authorization server would be. It binds
// 127.0.0.1 only.
//
//     node auth_server.mjs --port 8140 [--ttl 3600] [--cors all|no-registration|none]
//
// PKCE (S256) is required; tokens are JWTs for the resource a client names (RFC 8707), with the
// scopes notes:read and notes:write; offline_access brings a refresh token. The sign-in page is
// oidc-provider's development one (any login and password, then a consent page whose "Cancel"
// denies). Dynamic Client Registration is open, and there is one pre-registered public client,
// "loopscope-e2e", for the end-to-end page (its redirect URIs are the test site's).
//
// CORS: oidc-provider allows browsers on its metadata, token and revocation endpoints but not on
// registration. `all` (the default) puts CORS on registration too, as a deployment that wants
// browser clients to register does at its proxy; `no-registration` is oidc-provider as shipped
// (a browser cannot register: the user enters a client instead); `none` strips every CORS header.
import { createServer } from "node:http";
import Provider from "oidc-provider";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const port = Number(arg("port"));
if (!port) throw new Error("--port is required");
const ttl = Number(arg("ttl", "3600"));
const cors = arg("cors", "all");
if (!["all", "no-registration", "none"].includes(cors)) throw new Error(`--cors ${cors}: all, no-registration or none`);
const issuer = `http://127.0.0.1:${port}`;
const site = `http://127.0.0.1:${process.env.LOOPSCOPE_E2E_PORT ?? 4173}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "loopscope-e2e",
      client_name: "Loopscope (end-to-end tests)",
      application_type: "native",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      redirect_uris: [`${site}/loopscope/auth-callback.html`, `${site}/auth-callback.html`],
    },
  ],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A token is for the resource the client asked for, with the scopes it asked for.
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        audience: resource,
        scope: "notes:read notes:write",
        accessTokenFormat: "jwt",
        accessTokenTTL: ttl,
      }),
    },
  },
  scopes: ["offline_access", "notes:read", "notes:write"],
  pkce: { required: () => true },
  clientBasedCORS: () => cors !== "none",
  ttl: { AccessToken: ttl },
  issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed("refresh_token") && code.scopes.has("offline_access"),
  // The development sign-in page: any login names the account.
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
});

const app = provider.callback();
createServer((req, res) => {
  if (cors === "none") {
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => (String(name).toLowerCase().startsWith("access-control-") ? res : setHeader(name, value));
  } else if (cors === "all" && req.url.startsWith("/reg")) {
    res.setHeader("access-control-allow-origin", req.headers.origin ?? "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "content-type",
        "access-control-max-age": "600",
      });
      return res.end();
    }
  }
  app(req, res);
}).listen(port, "127.0.0.1", () => console.log(`ready on ${port} (issuer ${issuer}, cors: ${cors})`));
