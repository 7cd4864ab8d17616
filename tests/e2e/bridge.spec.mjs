// Issue 39: the servers developers actually have, through `loopscope bridge` — a stdio server from
// npm, and an unchanged Python SDK server that sends no CORS headers — from the release build, in
// Chromium: the link's consent screen, the loop with Claude (the fake API), a call by hand, stderr
// in the Log tab, and a child that dies as the bridge's own error layer.
import { test, expect } from "@playwright/test";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openRow, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const BIN = `${ROOT}target/debug/loopscope`;
const PAGE = "http://127.0.0.1:4173/loopscope/";
const running = [];

/** Starts `loopscope bridge --json ARGS…` from the repository's root; resolves its first line. */
function bridge(args) {
  const child = spawn(BIN, ["bridge", "--json", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  running.push(child);
  const stderr = [];
  child.stderr.on("data", (d) => stderr.push(String(d)));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => resolve({ child, stderr, ...JSON.parse(line) }));
    child.once("exit", (code) => reject(new Error(`the bridge exited (${code}): ${stderr.join("")}`)));
  });
}

test.afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGTERM");
});

/** Opens the bridge's connect link, checks the consent screen, connects; the server's card. */
async function connectThrough(page, started, says) {
  await page.goto(started.connect);
  const offer = page.getByRole("region", { name: "Connect through the bridge on this machine?" });
  await expect(offer).toBeVisible();
  await expect(offer).toContainText(says);
  // The token left the address bar (and the history) as soon as the page read it.
  expect(page.url()).not.toContain(started.token);
  expect(page.url()).not.toContain("#");
  return offer;
}

test("a stdio server from npm: the link, the consent, the loop, a call by hand and its stderr", async ({ page }) => {
  const console = watchConsole(page);
  const started = await bridge(["--page", PAGE, "--env", `MEMORY_FILE_PATH=${ROOT}target/e2e/memory-${Date.now()}.jsonl`, "--",
    "npx", "-y", "@modelcontextprotocol/server-memory"]);
  const offer = await connectThrough(page, started, "npx -y @modelcontextprotocol/server-memory");
  await expect(offer).toContainText("It runs this command on your machine, as you");
  await snap(page, "bridge-consent");
  await offer.getByRole("button", { name: "Connect" }).click();
  await expect(offer).toBeHidden();
  const card = page.locator("article.server-card").filter({ hasText: started.url });
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  const label = (await card.locator("h3").textContent()).trim();
  expect(label).toMatch(/memory/);

  // Claude calls it (phase 2 → 3 → 4 through the bridge).
  const key = "sk-e2e-bridge";
  await useFakeClaude(page, key);
  await script(key, [
    reply(toolUse(`${label}_create_entities`, { entities: [{ name: "Loopscope", entityType: "tool", observations: ["seen through the bridge"] }] })),
    { summarize: {} },
  ]);
  await ask(page, "Remember that Loopscope is a tool.");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(`→ tools/call create_entities on ${label}`)).toBeVisible();
  const [first, second] = await requests(key);
  expect(first.tools.map((t) => t.name)).toEqual(expect.arrayContaining([`${label}_create_entities`, `${label}_read_graph`]));
  const result = second.messages[2].content[0];
  expect(result.type).toBe("tool_result");
  expect(result.is_error ?? false).toBe(false);
  expect(JSON.stringify(result.content)).toContain("seen through the bridge");
  for (const band of ["Phase 1: Aggregate tools (round 1)", "Phase 2: Claude emits tool_use (round 1)", "Phase 3: Client routes (round 1)", "Phase 4: tool_result returns (round 1)"]) {
    await timelineRow(page, band);
  }
  await expect(page.locator(".tl-lanes")).toContainText(`MCP: ${label}`);
  // The 2026-07-28 probe a 2025 server refuses is the way to its handshake, not a red error
  // (issue 41): an information badge, and no failed row for it.
  await timelineRow(page, /to Loopscope: error #1.*-32601: not 2026-07-28/);
  await expect(page.locator(".tl-row.failed", { hasText: "server/discover" })).toHaveCount(0);

  // By hand: read_graph finds what Claude stored.
  await card.locator("summary", { hasText: "read_graph" }).click();
  await card.getByRole("form", { name: "Call read_graph" }).getByRole("button", { name: "Call tool" }).click();
  await expect(card.getByRole("status").filter({ hasText: "seen through the bridge" })).toBeVisible();

  // Its stderr, through the bridge's own channel, in the Log tab.
  await card.getByRole("tab", { name: "Log" }).click();
  await expect(card.getByText(/stderr: Knowledge Graph MCP Server running on stdio/)).toBeVisible({ timeout: 10_000 });
  // One process for the connection: the child the page's server/discover probe started is the
  // session's (its stderr line is there once).
  await expect(card.getByText(/stderr: Knowledge Graph MCP Server running on stdio/)).toHaveCount(1);
  await expect(card.getByText(/bridge: started: npx -y @modelcontextprotocol\/server-memory/)).toHaveCount(1);
  await snap(page, "bridge-stdio-log");
  console.expectNone();
});

test("a command typed as an address gets the bridge command for this page", async ({ page }) => {
  await page.goto("./");
  await page.getByLabel("MCP server URL").fill("npx -y @modelcontextprotocol/server-filesystem ~/notes");
  await page.getByRole("form", { name: "Add an MCP server" }).getByRole("button", { name: "Connect", exact: true }).click();
  const hint = page.getByRole("form", { name: "Add an MCP server" }).getByRole("status").filter({ hasText: "That is a command" });
  await expect(hint).toBeVisible();
  await expect(hint.getByLabel("The bridge command")).toHaveText(
    `loopscope bridge --page ${PAGE} -- npx -y @modelcontextprotocol/server-filesystem ~/notes`,
  );
  await expect(hint).toContainText(`./scripts/bridge --page ${PAGE} -- npx`);
  await expect(page.locator("article.server-card:not(.local)")).toHaveCount(0);
  await snap(page, "bridge-command-hint");
});

test("a server without CORS headers: the card shows the ways out, and --to reaches it", async ({ page }) => {
  const console = watchConsole(page, ["Access to fetch at", "Failed to load resource"]);
  await page.goto("./");
  const card = await addServer(page, URLS.pythonNoCors, "nocors", "failed");
  const relay = card.getByLabel("The bridge command");
  await expect(relay).toHaveText(`loopscope bridge --page ${PAGE} --to ${URLS.pythonNoCors}`);
  await expect(card).toContainText("Python, the mcp SDK's FastMCP");
  await expect(card).toContainText('allow_origins=["http://127.0.0.1:4173"]');
  await snap(page, "bridge-cors-ways-out");

  // The command as shown, run (its first word is the program).
  const shown = (await relay.textContent()).split(" ").slice(2);
  const started = await bridge(shown);
  const offer = await connectThrough(page, started, `It relays, unchanged, to the server at ${URLS.pythonNoCors}`);
  await offer.getByRole("button", { name: "Connect" }).click();
  const bridged = page.locator("article.server-card").filter({ hasText: started.url });
  await expect(bridged.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(bridged.locator("summary", { hasText: "search_notes" })).toBeVisible();
  console.expectNone();
});

test("a server process that dies mid-call is the bridge's error, with its exit code and last words", async ({ page }) => {
  const console = watchConsole(page, ["Failed to load resource"]);
  const started = await bridge(["--page", PAGE, "--", "python3", `${ROOT}crates/cli/tests/fixtures/stdio_server.py`]);
  const offer = await connectThrough(page, started, "stdio_server.py");
  await offer.getByRole("button", { name: "Connect" }).click();
  const card = page.locator("article.server-card").filter({ hasText: started.url });
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  const key = "sk-e2e-bridge-dies";
  await useFakeClaude(page, key);
  await script(key, [reply(toolUse("bridge_fixture_die", {})), { summarize: {} }]);
  await ask(page, "Call die.");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("bridge layer", { exact: true })).toBeVisible();
  // Claude is told what a real failure would tell it, in the bridge's words.
  const [, second] = await requests(key);
  const result = second.messages[2].content[0];
  expect(result.is_error).toBe(true);
  expect(JSON.stringify(result.content)).toContain("exited with code 3");
  await openRow(page, /tools\/call #\d+, die, .*HTTP 502, bridge/);
  await expect(page.getByRole("dialog").first()).toContainText("exited with code 3");
  // The bridge is a layer of its own among the layers crossed, not a JSON-RPC "no response".
  await expect(page.getByRole("dialog").first().locator(".layers")).toContainText("bridge: the server's process exited with code 3");
  await snap(page, "bridge-child-died");
  await page.keyboard.press("Escape");
  // Its last words, through the bridge's own channel, on the card.
  await card.getByRole("tab", { name: "Log" }).click();
  await expect(card.getByText("stderr: fixture: about to die")).toBeVisible({ timeout: 10_000 });
  await expect(card.getByText("bridge: the process ended: exited with code 3")).toBeVisible();
  console.expectNone();
});
