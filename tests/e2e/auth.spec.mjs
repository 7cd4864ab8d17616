// MCP authorization in a real browser (issue 14): a real authorization server (oidc-provider,
// tests/servers/auth_server.mjs) protecting a real MCP server (the TypeScript SDK v2, with its own
// bearer-auth and resource-metadata pieces), all on 127.0.0.1. The sign-in page is the
// authorization server's own, in a popup; each test signs in as a person would.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, openRow, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

// Chromium logs every 401 and 403 the protected server answers (that is how it asks for a token)
// and every 404 of discovery looking in the places the spec lists, in order.
const UNAUTHORIZED = "status of 401 (Unauthorized)";
const FORBIDDEN = "status of 403 (Forbidden)";
const NOT_FOUND = "status of 404 (Not Found)";

// The sign-in page's stylesheet asks for a web font: nothing leaves 127.0.0.1.
test.beforeEach(async ({ context }) => {
  await context.route((url) => !/^(https?:\/\/127\.0\.0\.1[:/]|data:|blob:|about:)/.test(url.href), (route) => route.abort());
});

/** Connects to a server with a label, without waiting for the outcome; returns its card. */
async function connect(page, url, label) {
  await page.getByLabel("MCP server URL").fill(url);
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill(label);
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Label and headers").click();
  return page.getByRole("article", { name: label });
}

/** Adds a server that will ask for a sign-in; returns its card and the sign-in window. */
async function addProtected(page, url, label, issuer = URLS.oauthIssuer) {
  const card = await connect(page, url, label);
  return { card, popup: await openSignIn(page, card, new URL(issuer).host) };
}

/** The card names the sign-in page's host first; only the user's click opens it (issue 19). */
async function openSignIn(page, card, host = new URL(URLS.oauthIssuer).host) {
  await expect(card.getByText("This server wants you to sign in")).toBeVisible({ timeout: 20_000 });
  await expect(card.locator(".sign-in-host")).toHaveText(host);
  const popup = page.waitForEvent("popup");
  await card.getByRole("button", { name: "Open the sign-in page" }).click();
  return popup;
}

/** Signs in on oidc-provider's development pages: any login, then the consent page. */
async function signIn(popup, { approve = true } = {}) {
  await popup.locator("input[name=login]").fill("ada");
  await popup.locator("input[name=password]").fill("any password");
  await popup.getByRole("button", { name: "Sign-in" }).click();
  await consent(popup, { approve });
}

async function consent(popup, { approve = true } = {}) {
  if (approve) await popup.getByRole("button", { name: "Continue" }).click();
  else await popup.getByRole("link", { name: "[ Cancel ]" }).click();
}

/** Every Authorization header the page sends, with where it went. */
function watchBearer(page) {
  const sent = [];
  page.on("request", async (r) => {
    const auth = (await r.allHeaders()).authorization;
    if (auth) sent.push({ url: r.url(), auth });
  });
  return sent;
}

/** Every token the authorization server hands the page (access and refresh), read off the wire. */
function watchTokens(page) {
  // Read on the way through (a response event's body can be gone by the time it is asked for,
  // once the page has fetched much else: its chunks).
  const tokens = [];
  page.route(/\/token$/, async (route) => {
    if (route.request().method() !== "POST") return route.fallback();
    const response = await route.fetch();
    try {
      const body = await response.json();
      for (const k of ["access_token", "refresh_token", "id_token"]) if (body[k]) tokens.push(body[k]);
    } catch {}
    await route.fulfill({ response });
  });
  return tokens;
}

const storage = (page) => page.evaluate(() => JSON.stringify({ ...localStorage }));

test("a protected server: sign in in a popup, its tools in a turn, every step on the timeline, the token only where it belongs", async ({ page }) => {
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND]);
  const sent = watchBearer(page);
  const issued = watchTokens(page);
  await openApp(page);
  const key = "sk-e2e-oauth";
  await useFakeClaude(page, key);
  // A second, unprotected server: it must never see the token.
  await addServer(page, URLS.everything, "everything");

  const { card, popup } = await addProtected(page, URLS.oauth, "notes");
  await expect(card.getByText(/Your turn: sign in on 127\.0\.0\.1:\d+, in the window that opened/)).toBeVisible();
  await card.locator(".auth").scrollIntoViewIfNeeded();
  await snap(page, "auth-waiting-for-you");
  await signIn(popup);
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  const info = card.locator(".auth-info");
  await expect(info).toContainText(`at ${URLS.oauthIssuer}`);
  await expect(info).toContainText("notes:read");
  await expect(info).toContainText("refreshed by itself");
  await expect(info).toContainText("dynamic client registration");
  await card.locator(".auth").scrollIntoViewIfNeeded();
  await snap(page, "auth-signed-in");

  // Its tools work in a turn.
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "Search my notes for mcp.");
  expect(JSON.stringify((await requests(key)).at(-1).messages.at(-1))).toContain("microservices for LLMs");

  // The whole dance, on the server's Authorization lane.
  for (const step of [
    /Loopscope to OAuth: notes: resource metadata, GET 127\.0\.0\.1:18430\/\.well-known\/oauth-protected-resource\/mcp/,
    /Loopscope to OAuth: notes: authorization server metadata, GET 127\.0\.0\.1:18431\/\.well-known\/(oauth-authorization-server|openid-configuration)/,
    /Loopscope to OAuth: notes: client registration/,
    /Loopscope to OAuth: notes: sign-in page: your turn/,
    /OAuth: notes to Loopscope: redirect back, authorization code received; state matches; iss matches/,
    /Loopscope to OAuth: notes: token request/,
    /Note: signed in/,
  ]) {
    await timelineRow(page, step);
  }
  await (await timelineRow(page, /Loopscope to OAuth: notes: client registration/)).scrollIntoViewIfNeeded();
  await snap(page, "auth-lane");

  // The token request's raw view: the code and the PKCE verifier are masked, the challenge's
  // method shows.
  await openRow(page, /Loopscope to OAuth: notes: token request/);
  const detail = page.getByRole("dialog").first();
  await expect(detail).toContainText("grant_type=authorization_code");
  await expect(detail).toContainText("code_verifier=••••••");
  await expect(detail).toContainText("code=••••••");
  await snap(page, "auth-token-request");
  await page.keyboard.press("Escape");

  // The token went to the protected server only: never to the other server, the authorization
  // server or the Messages API.
  const tokens = sent.filter((s) => s.url.startsWith(URLS.oauth));
  expect(tokens.length).toBeGreaterThan(0);
  expect(sent.filter((s) => !s.url.startsWith(URLS.oauth)).map((s) => s.url)).toEqual([]);
  const token = tokens[0].auth.replace(/^Bearer /, "");
  expect(token.length).toBeGreaterThan(20);
  // Nowhere on the page, in its trace views, or in its storage (nobody opted in).
  expect(await page.content()).not.toContain(token);
  expect(await storage(page)).not.toContain(token);

  // Nor in an exported session: no access, refresh or ID token, no key.
  expect(issued.length).toBeGreaterThanOrEqual(2);
  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  const downloading = page.waitForEvent("download");
  await workshop.getByRole("button", { name: "Export this session" }).click();
  const exported = (await import("node:fs")).readFileSync(await (await downloading).path(), "utf8");
  expect(exported).toContain(URLS.oauthIssuer);
  for (const secret of [...issued, token, key]) expect(exported).not.toContain(secret);
  console.expectNone();
});

test("step-up: a tool that needs more scope gets a 403, and a second sign-in asks for the old scopes and the new one", async ({ page }) => {
  const console = watchConsole(page, [UNAUTHORIZED, FORBIDDEN, NOT_FOUND]);
  await openApp(page);
  const key = "sk-e2e-oauth-step-up";
  await useFakeClaude(page, key);
  const { card, popup } = await addProtected(page, URLS.oauth, "notes");
  await signIn(popup);
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(card.locator(".auth-info")).not.toContainText("notes:write");

  await script(key, [reply(toolUse("notes_add_note", { text: "step-up works" })), { summarize: {} }]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Add a note.");
  await page.getByRole("button", { name: "Send" }).click();
  // The same account: only the consent for the new scope is asked.
  const second = await openSignIn(page, card);
  await expect(second).toHaveURL(/interaction/);
  await snap(page, "auth-step-up-waiting");
  await consent(second);
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  expect(JSON.stringify((await requests(key)).at(-1).messages.at(-1))).toContain("Added: step-up works");
  await expect(card.locator(".auth-info")).toContainText("notes:read notes:write");
  await timelineRow(page, /Note: 403: more scope needed/);
  // SEP-2350: the second sign-in asked for what the first had too.
  await timelineRow(page, /Loopscope to OAuth: notes: sign-in page: your turn, scope notes:read offline_access notes:write/);
  console.expectNone();
});

test("a token that expires is refreshed without asking the user", async ({ page }) => {
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND]);
  await openApp(page);
  const key = "sk-e2e-oauth-refresh";
  await useFakeClaude(page, key);
  const { card, popup } = await addProtected(page, URLS.oauthShort, "brief", URLS.oauthShortIssuer);
  await signIn(popup);
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(card.locator(".auth-info")).toContainText("in 15 s");
  // The token lives 15 s; a turn after that refreshes it first (no window opens).
  let popups = 0;
  page.on("popup", () => popups++);
  await page.waitForTimeout(13_000);
  await script(key, [reply(toolUse("brief_search_notes", { query: "revision" })), { summarize: {} }]);
  await ask(page, "Search my notes.");
  expect(JSON.stringify((await requests(key)).at(-1).messages.at(-1))).toContain("no initialize handshake");
  await timelineRow(page, /Loopscope to OAuth: brief: token refresh/);
  expect(popups).toBe(0);
  console.expectNone();
});

test("a denied consent says who declined and what to do; signing in again works", async ({ page }) => {
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND]);
  await openApp(page);
  const { card, popup } = await addProtected(page, URLS.oauth, "notes");
  await signIn(popup, { approve: false });
  await expect(card.getByText("failed", { exact: true })).toBeVisible({ timeout: 20_000 });
  const failure = card.locator(".failure").first();
  await expect(failure).toContainText("authorization layer");
  await expect(failure).toContainText("the authorization server answered access_denied: End-User aborted interaction");
  await expect(failure).toContainText("declined: sign in again");
  await timelineRow(page, /OAuth: notes to Loopscope: redirect back, .*access_denied.*refused/);
  await card.scrollIntoViewIfNeeded();
  await snap(page, "auth-denied");
  // The sign-in window is gone: the callback page closed itself (or Loopscope closed it).
  await expect.poll(() => popup.isClosed()).toBe(true);

  await card.getByRole("button", { name: "Sign in again" }).click();
  await consent(await openSignIn(page, card));
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  console.expectNone();
});

test("a forged redirect is ignored: only the answer with the state this page sent counts", async ({ page, context }) => {
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND]);
  await openApp(page);
  const { card, popup } = await addProtected(page, URLS.oauth, "notes");
  // Another tab of this site hands back a code with a state this page never sent.
  const forger = await context.newPage();
  await forger.goto("auth-callback.html?code=forged-code&state=forged-state&iss=http%3A%2F%2F127.0.0.1%3A18431");
  await expect(forger.getByText("Loopscope has the answer")).toBeVisible();
  await page.waitForTimeout(500);
  await expect(card.getByText(/Your turn: sign in on .*, in the window that opened/)).toBeVisible();
  await signIn(popup);
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  console.expectNone();
});

test("an authorization server that will not let a page register: the card says so, and the user's own client works", async ({ page }) => {
  // oidc-provider as shipped: no CORS on its registration endpoint.
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND, "blocked by CORS policy", "net::ERR_FAILED"]);
  await openApp(page);
  const card = await connect(page, URLS.oauthNoCors, "locked");
  await expect(card.getByText("failed", { exact: true })).toBeVisible({ timeout: 20_000 });
  const failure = card.locator(".failure").first();
  await expect(failure).toContainText(`client registration (${URLS.oauthNoCorsIssuer}/reg): no HTTP answer`);
  await expect(failure).toContainText("does not let a page register itself");
  await expect(failure).toContainText('enter it under "Your own OAuth client"');
  await failure.getByText("What to check").click();
  await expect(failure).toContainText("Access-Control-Allow-Origin");
  await timelineRow(page, /Loopscope to OAuth: locked: client registration, .*network/);
  await card.scrollIntoViewIfNeeded();
  await snap(page, "auth-registration-cors");

  // The remedy the card offers: a client registered by hand (the authorization server has one).
  const own = card.locator(".own-client");
  await own.locator(":scope > summary").click();
  await own.getByLabel("Client id").fill("loopscope-e2e");
  await own.getByRole("button", { name: "Use this client and connect" }).click();
  await signIn(await openSignIn(page, card, new URL(URLS.oauthNoCorsIssuer).host));
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(card.locator(".auth-info")).toContainText("a client you registered");
  console.expectNone();
});

test("a workload token and an enterprise ID token go in the user's own client, and are never stored", async ({ page }) => {
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND, "blocked by CORS policy", "net::ERR_FAILED"]);
  await openApp(page);
  const card = await connect(page, URLS.oauthNoCors, "locked");
  await expect(card.getByText("failed", { exact: true })).toBeVisible({ timeout: 20_000 });
  const own = card.locator(".own-client");
  await own.locator(":scope > summary").click();
  await own.getByLabel("Client id").fill("loopscope-e2e");
  const workload = "eyJ.workload-token-e2e.sig";
  const idToken = "eyJ.enterprise-id-token-e2e.sig";
  await own.getByLabel(/workload identity token/).fill(workload);
  await own.getByText("Enterprise-managed authorization (ID-JAG)").click();
  await own.getByLabel("Identity provider's token endpoint").fill("https://idp.example.com/token");
  await own.getByLabel("Your ID token from it").fill(idToken);
  await own.scrollIntoViewIfNeeded();
  await snap(page, "auth-own-client-grants");
  await own.getByRole("button", { name: "Use this client and connect" }).click();
  // The authorization server here offers neither grant: the flow goes on to its sign-in page,
  // and neither token was sent anywhere or written down.
  await expect(card.getByRole("button", { name: "Open the sign-in page" })).toBeVisible({ timeout: 20_000 });
  await expect(own.getByLabel("Your ID token from it")).toHaveValue(idToken);
  const all = await storage(page);
  expect(all).toContain("loopscope-e2e");
  expect(all).not.toContain(workload);
  expect(all).not.toContain(idToken);
  console.expectNone();
});

test("the sign-in is kept on this device only when asked, and sign out forgets it", async ({ page }) => {
  const console = watchConsole(page, [UNAUTHORIZED, NOT_FOUND]);
  const sent = watchBearer(page);
  await openApp(page);
  const { card, popup } = await addProtected(page, URLS.oauth, "notes");
  await signIn(popup);
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  const token = sent.find((s) => s.url.startsWith(URLS.oauth)).auth.replace(/^Bearer /, "");
  expect(await storage(page)).not.toContain(token);

  await card.getByLabel("Remember the sign-in on this device").check();
  await expect(card.getByText("stored unencrypted", { exact: false })).toBeVisible();
  expect(await storage(page)).toContain(token);
  await page.reload();
  const back = page.getByRole("article", { name: "notes" });
  await expect(back.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(back.locator(".auth-info")).toContainText("notes:read");

  await back.getByRole("button", { name: "Sign out" }).click();
  await expect(back.getByText("Not signed in.")).toBeVisible();
  expect(await storage(page)).not.toContain(token);
  console.expectNone();
});

test.describe("the sign-in code loaded on first use", () => {
  // Without the service worker, so the page's own requests can be held back.
  test.use({ serviceWorkers: "block" });

  test("does not arrive: the card says so at the layer it failed, and signing in works once it can load", async ({ page }) => {
    watchConsole(page, [UNAUTHORIZED, NOT_FOUND, "Failed to load resource", "TypeError: Failed to fetch", "net::ERR_FAILED"]);
    await page.route(/\/split_signin\.wasm$/, (route) => route.abort("failed"));
    await openApp(page);
    const card = await connect(page, URLS.oauth, "notes");
    await expect(card.getByText(/the page's sign-in code did not arrive/)).toBeVisible({ timeout: 20_000 });
    await expect(card.getByText(/connect \(or reload the page\), then try again/)).toBeVisible();
    await expect(card.getByText("Fix what the message says, then press Reconnect.")).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await snap(page, "auth-code-missing");

    // The file is back: Reconnect asks again, and the sign-in runs.
    await page.unroute(/\/split_signin\.wasm$/);
    await card.getByRole("button", { name: "Reconnect" }).click();
    await signIn(await openSignIn(page, card));
    await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  });
});
