// Ports of the fixture servers the end-to-end specs use (all bound to 127.0.0.1).
export const FIXTURES = {
  everything: 18421,
  python: 18422,
  "python-nocors": 18423,
  faults: 18424,
  claude: 18425,
  ts: 18426,
  "ts-reject": 18427,
  python2: 18428,
  // A 2026-07-28 server with the tasks extension (testkit/src/tasks_server.rs).
  tasks: 18429,
  // OAuth stacks: the MCP server on this port, its authorization server on the next one.
  oauth: 18430,
  "oauth-nocors": 18432,
  "oauth-short": 18434,
  // The MCP Apps example server with app-only tools (@modelcontextprotocol/server-debug).
  "apps-debug": 18436,
  // The ext-apps repository's plainest example app (@modelcontextprotocol/server-basic-vanillajs).
  "apps-basic": 18437,
};

// The hostile servers (tests/hostile/server.mjs): this port, and the next one as another origin.
export const HOSTILE = 18440;

export const URLS = {
  everything: `http://127.0.0.1:${FIXTURES.everything}/mcp`,
  appsDebug: `http://127.0.0.1:${FIXTURES["apps-debug"]}/mcp`,
  appsBasic: `http://127.0.0.1:${FIXTURES["apps-basic"]}/mcp`,
  python: `http://127.0.0.1:${FIXTURES.python}/mcp`,
  pythonNoCors: `http://127.0.0.1:${FIXTURES["python-nocors"]}/mcp`,
  fault: (scenario) => `http://127.0.0.1:${FIXTURES.faults}/${scenario}/mcp`,
  claude: `http://127.0.0.1:${FIXTURES.claude}`,
  ts: `http://127.0.0.1:${FIXTURES.ts}/mcp`,
  tsReject: `http://127.0.0.1:${FIXTURES["ts-reject"]}/mcp`,
  python2: `http://127.0.0.1:${FIXTURES.python2}/mcp`,
  tasks: `http://127.0.0.1:${FIXTURES.tasks}/mcp`,
  oauth: `http://127.0.0.1:${FIXTURES.oauth}/mcp`,
  oauthIssuer: `http://127.0.0.1:${FIXTURES.oauth + 1}`,
  oauthNoCors: `http://127.0.0.1:${FIXTURES["oauth-nocors"]}/mcp`,
  oauthNoCorsIssuer: `http://127.0.0.1:${FIXTURES["oauth-nocors"] + 1}`,
  oauthShort: `http://127.0.0.1:${FIXTURES["oauth-short"]}/mcp`,
  hostile: (path) => `http://127.0.0.1:${HOSTILE}${path}`,
  hostileOther: `http://127.0.0.1:${HOSTILE + 1}`,
  oauthShortIssuer: `http://127.0.0.1:${FIXTURES["oauth-short"] + 1}`,
};
