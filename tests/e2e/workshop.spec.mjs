// Workshop mode (issue 15) in Chromium against the release build, with real MCP servers.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, openRow, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

/** The text of the first tool_result Claude received in the last request with `key`. */
async function received(key) {
  const last = (await requests(key)).at(-1);
  const result = last.messages.at(-1).content[0];
  const text = typeof result.content === "string" ? result.content : result.content.map((b) => b.text).join(" ");
  return { isError: result.is_error === true, text };
}

// Each fault, injected on a real server (the Python SDK), and what Claude then receives.
const SERVER_FAULTS = [
  ["network", "HTTP 0", /could not be reached/, "network"],
  ["cors", "CORS", /could not be reached/, "cors"],
  ["http-503", "HTTP 503", /HTTP 503 from the server/, "http"],
  ["malformed-json", "JSON", /could not decode the response/, "decode"],
  ["stream-cut", "stream", /could not be reached|broke off/, "stream"],
  ["rpc-32602", "-32602", /JSON-RPC error -32602 \(Invalid params\)/, "jsonrpc"],
  ["tool-error", "isError", /The tool failed/, "tool"],
];

// Injected faults are made in the page: no request fails for real, so the console stays clean.
test("a server's Faults tab breaks its next call at the chosen layer, marked injected, and Claude gets the error", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-faults";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.python, "notes");
  await card.getByRole("tab", { name: "Faults" }).click();
  for (const [fault, , says, shot] of SERVER_FAULTS) {
    await card.getByLabel("Fault", { exact: true }).selectOption(fault);
    await card.getByRole("button", { name: "Inject" }).click();
    await expect(card.getByRole("list", { name: "Faults in force" })).toContainText("next call");
    await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
    await ask(page, `Search the notes (${fault}).`);
    const got = await received(key);
    expect(got.isError, fault).toBe(true);
    expect(got.text, fault).toMatch(says);
    // The timeline says the fault was staged; Claude reads what the real failure would give it.
    expect(got.text, fault).not.toMatch(/inject|Loopscope/i);
    // Used up: the list is empty again, and the timeline marks the call.
    await expect(card.getByRole("list", { name: "Faults in force" })).toBeEmpty();
    // The newest rows are in view (the timeline follows): the last injected call is this one.
    const marked = page.getByRole("listbox", { name: /Timeline events/ }).getByRole("option", { name: /tools\/call #\d+, search_notes.*injected/ });
    await marked.last().scrollIntoViewIfNeeded();
    await expect(marked.last()).toBeVisible();
    await snap(page, `fault-${shot}`);
  }
  // Every call, until removed: two turns fail, then the server answers again.
  await card.getByLabel("Fault", { exact: true }).selectOption("http-500");
  await card.getByLabel("When").selectOption("every");
  await card.getByRole("button", { name: "Inject" }).click();
  for (let i = 0; i < 2; i++) {
    await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
    await ask(page, "Search again.");
    expect((await received(key)).text).toMatch(/HTTP 500/);
  }
  await card.getByRole("button", { name: /^Stop injecting: HTTP 500/ }).click();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "And once more.");
  expect((await received(key)).isError).toBe(false);
  console.expectNone();
});

test("Claude's side: a tool that does not exist, and arguments that break the schema", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-claude-faults";
  await useFakeClaude(page, key);
  await addServer(page, URLS.python, "notes");
  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  await workshop.getByLabel("Fault", { exact: true }).selectOption("unknown-tool");
  await workshop.getByRole("button", { name: "Inject" }).click();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "Search the notes.");
  let got = await received(key);
  expect(got.isError).toBe(true);
  expect(got.text).toContain("notes_search_notes_that_does_not_exist");
  await (await timelineRow(page, /Note: injected: Claude asks for a tool that does not exist/)).scrollIntoViewIfNeeded();
  await snap(page, "fault-claude-unknown-tool");

  await workshop.getByLabel("Fault", { exact: true }).selectOption("bad-arguments");
  await workshop.getByRole("button", { name: "Inject" }).click();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "Search the notes again.");
  got = await received(key);
  expect(got.isError).toBe(true);
  expect(got.text).toMatch(/query/);
  console.expectNone();
});

test("breakpoints: pause when the tool_use arrives, edit an argument, continue; the timeline marks it edited with the original one click away", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-breakpoints";
  await useFakeClaude(page, key);
  await addServer(page, URLS.python, "notes");
  // From the timeline's phase chip.
  await page.getByRole("button", { name: /^Stop at phase 2/ }).click();
  await expect(page.getByRole("button", { name: /^Stop at phase 2/ })).toHaveAttribute("aria-pressed", "true");
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Search the notes for mcp.");
  await page.getByRole("button", { name: "Send" }).click();

  const paused = page.getByRole("region", { name: /Paused at phase 2/ });
  await expect(paused).toBeVisible();
  await expect(paused.getByRole("heading")).toHaveText("Paused at phase 2: Claude emits tool_use (round 1)");
  const editor = paused.getByLabel("As it will be sent");
  await expect(editor).toHaveValue(/"query": "mcp"/);
  await snap(page, "paused-phase-2");
  // A broken edit is named and cannot be sent.
  await editor.fill('{"type": "tool_use", "id": "nope"');
  await expect(paused.getByRole("status")).toContainText("Cannot be sent: not JSON");
  await expect(paused.getByRole("button", { name: "Continue (F8)" })).toBeDisabled();
  await paused.getByRole("button", { name: "Restore the original" }).click();
  await editor.fill((await editor.inputValue()).replace('"mcp"', '"jsonrpc"'));
  await expect(paused.getByRole("status")).toContainText("Edited: valid");
  await snap(page, "paused-edited");
  await page.keyboard.press("F8");
  await expect(paused).toBeHidden();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  // The server ran the edited call; Claude received its result.
  expect((await received(key)).text).toContain("strict contract");
  // The conversation says what was sent: the edited tool_use.
  const sent = (await requests(key)).at(-1).messages;
  expect(JSON.stringify(sent[1])).toContain('"query":"jsonrpc"');

  await timelineRow(page, /Note: paused at phase 2 · tool_use notes_search_notes, breakpoint, edited/);
  await page.getByRole("listbox", { name: /Timeline events/ }).getByRole("option", { name: /paused at phase 2/ }).click();
  const detail = page.getByRole("dialog").first();
  await expect(detail).toContainText('"query": "mcp"');
  await expect(detail).toContainText('"query": "jsonrpc"');
  console.expectNone();
});

test("step through a turn with F10, skip a call, and send tool_results that break the API's rules on purpose", async ({ page }) => {
  const console = watchConsole(page, ["status of 400 (Bad Request)"]);
  await openApp(page);
  const key = "sk-e2e-step";
  await useFakeClaude(page, key);
  await addServer(page, URLS.python, "notes");
  await script(key, [
    reply(toolUse("notes_search_notes", { query: "mcp" }), toolUse("calculate", { expression: "6*7" })),
    { summarize: {} },
  ]);
  await page.getByRole("button", { name: "Step", exact: true }).click();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Search and calculate.");
  await page.getByRole("button", { name: "Send" }).click();
  const heading = page.locator(".paused h2");
  await expect(heading).toHaveText(/Paused at phase 1/);
  await page.keyboard.press("F10");
  await expect(heading).toHaveText(/Paused at phase 2/);
  await page.keyboard.press("F10"); // the second tool_use
  await expect(page.locator(".paused-what")).toContainText("tool_use calculate");
  await page.keyboard.press("F10");
  await expect(heading).toHaveText(/Paused at phase 3/);
  await expect(page.locator(".paused-what")).toContainText("route notes_search_notes");
  await page.getByRole("button", { name: "Skip this call" }).click();
  await page.getByRole("button", { name: "Step to the next phase (F10)" }).waitFor();
  await expect(page.locator(".paused-what")).toContainText("route calculate");
  await page.keyboard.press("F10");
  await expect(heading).toHaveText(/Paused at phase 4/);
  // Leave out the first tool_result: the page names the rule, and sends it when asked.
  const editor = page.getByLabel("As it will be sent");
  const message = JSON.parse(await editor.inputValue());
  expect(message.content[0].content).toContain("Skipped at a breakpoint: not executed.");
  message.content.shift();
  await editor.fill(JSON.stringify(message, null, 2));
  await expect(page.locator(".draft-verdict")).toContainText("the API will refuse it");
  await expect(page.locator(".draft-verdict")).toContainText("no tool_result for");
  await snap(page, "paused-phase-4-rule");
  await page.keyboard.press("F8");
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  await expect(page.getByText(/HTTP 400/).first()).toBeVisible();
  console.expectNone();
});

test("export a session with no secret in it, open it read-only with no network, and replay it against live servers", async ({ page, context, browser }) => {
  const console = watchConsole(page);
  await openApp(page);
  // Real-looking secrets: the key (also typed into a message by mistake) and a header value.
  const key = "sk-ant-api03-e2eSessionKey_4f9c2b7d1e6a8b3c5d0e9f7a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c";
  const header = "Bearer ghp_e2eHeaderSecret0123456789abcdefABCDEF";
  await useFakeClaude(page, key);
  // A secret pasted into a settings field by mistake.
  await page.getByText("Model and request").click();
  await page.getByLabel("System prompt").fill(`Be brief. (pasted by mistake: ${key})`);
  await page.getByText("Model and request").click();
  await page.getByLabel("MCP server URL").fill(URLS.python);
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill("notes");
  await page.getByLabel("Headers, one per line").fill(`Authorization: ${header}`);
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Label and headers").click();
  await expect(page.getByRole("article", { name: "notes" }).getByText("connected", { exact: true })).toBeVisible();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, `Search the notes. (oops, my key: ${key})`);

  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  const downloading = page.waitForEvent("download");
  await workshop.getByRole("button", { name: "Export this session" }).click();
  const file = await (await downloading).path();
  const text = (await import("node:fs")).readFileSync(file, "utf8");
  expect(text).not.toContain(key);
  expect(text).not.toContain("e2eSessionKey");
  expect(text).not.toContain("ghp_e2eHeaderSecret");
  expect(text).toContain("pasted by mistake: ••••••");
  const session = JSON.parse(text);
  expect(session.loopscope_session).toBe(1);
  expect(session.servers[0]).toMatchObject({ label: "notes", header_names: ["Authorization"] });
  expect(session.conversation.length).toBe(4);
  expect(session.trace.length).toBeGreaterThan(20);

  // Another browser, offline: only the page itself may load.
  const offline = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await offline.route((url) => !url.href.startsWith(new URL(page.url()).origin), (route) => route.abort());
  const viewer = await offline.newPage();
  const viewerConsole = watchConsole(viewer);
  await openApp(viewer);
  const panel = viewer.getByRole("region", { name: "Workshop" });
  await panel.getByText("Workshop").click();
  await panel.getByLabel("Open a recorded session…").setInputFiles(file);
  await expect(viewer.getByRole("region", { name: "A recorded session" })).toContainText("1 turn");
  await expect(viewer.getByText("Search the notes. (oops, my key: ••••••)")).toBeVisible();
  await expect(viewer.locator(".chat").getByText(/^Tool results — .*microservices for LLMs/)).toBeVisible();
  await expect(viewer.getByRole("button", { name: "Send" })).toBeDisabled();
  await timelineRow(viewer, /Loopscope to MCP: notes: tools\/call #\d+, search_notes/);
  await snap(viewer, "session-imported");
  // The detail pane shows the recorded call, layer by layer, as it was.
  await openRow(viewer, /Loopscope to MCP: notes: tools\/call #\d+, search_notes/);
  const detail = viewer.getByRole("dialog").first();
  await expect(detail).toContainText('"query": "mcp"');
  await expect(detail).toContainText("microservices for LLMs");
  await snap(viewer, "session-imported-detail");
  await viewer.keyboard.press("Escape");
  viewerConsole.expectNone();

  // Opening it here sets this page's own conversation aside, and closing it brings it back.
  await script(key, [reply({ text: "A second answer, after the export." })]);
  await ask(page, "One more question.");
  await expect(page.getByText("A second answer, after the export.")).toBeVisible();
  await workshop.getByLabel("Open a recorded session…").setInputFiles(file);
  const banner = page.getByRole("region", { name: "A recorded session" });
  await expect(banner).toContainText("Your own conversation is set aside");
  await expect(page.getByText("A second answer, after the export.")).toHaveCount(0);
  await banner.getByRole("button", { name: "Close it" }).click();
  await expect(page.getByText("A second answer, after the export.")).toBeVisible();
  await expect(page.getByPlaceholder(/Ask Claude/)).toBeEnabled();

  // Replay it here, against the live server and the fake API: the same turn, compared.
  await workshop.getByLabel("Open a recorded session…").setInputFiles(file);
  // This time the model asks for something else: the comparison shows what changed.
  await script(key, [reply(toolUse("notes_search_notes", { query: "jsonrpc" })), { summarize: {} }]);
  await page.getByRole("button", { name: "Replay it against your servers and model" }).click();
  const comparison = page.getByRole("region", { name: "The replay next to the recording" });
  await expect(comparison).toContainText("1 turn, 1 changed.", { timeout: 30_000 });
  const call = comparison.locator("tr.differs", { hasText: "call" });
  await expect(call.locator("td").nth(0)).toHaveText('notes_search_notes {"query":"mcp"}');
  await expect(call.locator("td").nth(1)).toHaveText('notes_search_notes {"query":"jsonrpc"}');
  await expect(comparison.locator("tr.differs", { hasText: "result" }).locator("td").nth(1)).toContainText("strict contract");
  await snap(page, "session-replayed");
  await offline.close();
  console.expectNone();
});
