// MCP 2026-07-28 and the 2025 revisions, side by side (issue 13): every kind of server runs a full
// turn under each revision it speaks; the card says which revision and why; pinning another one
// reconnects, and the timeline shows the handshake (or its absence) and the headers as they were.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, openRow, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

const KINDS = [
  // [url, label, tool, input, what the result says, the revision Automatic picks]
  [URLS.ts, "ts", "search_notes", { query: "revision" }, "no initialize handshake", "2026-07-28"],
  [URLS.tsReject, "strict", "search_notes", { query: "mcp" }, "microservices for LLMs", "2026-07-28"],
  [URLS.python2, "py2", "add", { a: 2, b: 3 }, "5.0", "2026-07-28"],
  [URLS.everything, "everything", "echo", { message: "both eras" }, "Echo: both eras", "2025-11-25"],
  [URLS.python, "notes", "search_notes", { query: "jsonrpc" }, "strict contract", "2025-11-25"],
];

/** The text of the tool_result Claude received in the last request with `key`. */
async function received(key) {
  const last = (await requests(key)).at(-1);
  const results = last.messages.at(-1).content;
  return results.map((r) => (typeof r.content === "string" ? r.content : r.content.map((b) => b.text).join(" "))).join(" ");
}

async function turn(page, key, name, input) {
  await script(key, [reply(toolUse(name, input)), { summarize: {} }]);
  await ask(page, `Use ${name}.`);
}

const revision = (card) => card.locator(".server-info strong");

// A stateless 2025 session has no GET stream: the server answers GET with 405, as the spec says,
// and the client takes it as "no stream" (C-08). Chromium logs the 405 all the same.
const NO_GET_STREAM = "status of 405 (Method Not Allowed)";

test("every kind of server runs a full turn under each revision it speaks", async ({ page }) => {
  const console = watchConsole(page, [NO_GET_STREAM]);
  await openApp(page);
  const key = "sk-e2e-revisions";
  await useFakeClaude(page, key);
  for (const [url, label, tool, input, says, automatic] of KINDS) {
    const card = await addServer(page, url, label);
    await expect(revision(card)).toHaveText(automatic);
    const why = automatic === "2026-07-28" ? /server\/discover lists 2026-07-28/ : /^server\/discover (answered|got no HTTP answer).*: the 2025 handshake \(initialize\)$/;
    await expect(card.locator(".why")).toHaveText(why);
    await turn(page, key, `${label}_${tool}`, input);
    expect(await received(key)).toContain(says);
  }
  // The dual-era servers, pinned to 2025-11-25: the handshake, and the same turn works.
  for (const [, label, tool, input, says] of KINDS.filter(([, l]) => l === "ts" || l === "py2")) {
    const card = page.getByRole("article", { name: label });
    await card.getByLabel("Revision").selectOption("2025-11-25");
    await expect(revision(card)).toHaveText("2025-11-25");
    await expect(card.locator(".why")).toContainText("2025-11-25 was pinned");
    await turn(page, key, `${label}_${tool}`, input);
    expect(await received(key)).toContain(says);
  }
  console.expectNone();
});

test("the same server under two revisions: the card and the timeline show the difference", async ({ page }) => {
  // …and the strict server refuses initialize with a 400 (-32022), which this test asks for.
  const console = watchConsole(page, [NO_GET_STREAM, "status of 400 (Bad Request)"]);
  await openApp(page);
  const key = "sk-e2e-two-revisions";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.ts, "ts");
  await turn(page, key, "ts_weather", { region: "us-west1" });
  expect(await received(key)).toContain("Sunny in us-west1.");
  await expect(card.getByText("no handshake, no session: each request says its version")).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await snap(page, "revision-2026-card");

  // 2026-07-28: discovery instead of a handshake; the call carries its metadata in headers too.
  await timelineRow(page, /^Loopscope to MCP: ts: server\/discover #1/);
  await openRow(page, /^Loopscope to MCP: ts: tools\/call #\d+/);
  const pane = page.getByRole("dialog");
  await expect(pane.getByText(/mcp-method: tools\/call/).first()).toBeVisible();
  await expect(pane.getByText(/mcp-name: weather/).first()).toBeVisible();
  await expect(pane.getByText(/mcp-param-region: us-west1/).first()).toBeVisible();
  await expect(pane.getByText(/"io.modelcontextprotocol\/protocolVersion": "2026-07-28"/).first()).toBeVisible();
  await expect(pane.getByText(/mcp-session-id/)).toHaveCount(0);
  await snap(page, "revision-2026-timeline");
  await page.keyboard.press("Escape");

  // Pinned to 2025-11-25: the same server, with the handshake and a session.
  await card.getByLabel("Revision").selectOption("2025-11-25");
  await expect(revision(card)).toHaveText("2025-11-25");
  await turn(page, key, "ts_weather", { region: "eu-north1" });
  expect(await received(key)).toContain("Sunny in eu-north1.");
  await timelineRow(page, /^Loopscope to MCP: ts: initialize #\d+/);
  await expect(card.getByText("initialize handshake and a session")).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await snap(page, "revision-2025-card");
  await openRow(page, /^Loopscope to MCP: ts: notifications\/initialized/);
  await snap(page, "revision-2025-timeline");
  await page.keyboard.press("Escape");

  // A server that speaks only 2026-07-28, pinned to 2025: refused, and the card says what to do.
  const strict = await addServer(page, URLS.tsReject, "strict");
  await strict.getByLabel("Revision").selectOption("2025-11-25");
  await expect(strict.getByText("failed", { exact: true })).toBeVisible();
  await expect(strict.getByText(/only speaks MCP 2026-07-28/)).toBeVisible();
  await strict.getByLabel("Revision").selectOption("auto");
  await expect(revision(strict)).toHaveText("2026-07-28");
  console.expectNone();
});
