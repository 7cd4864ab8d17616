// MCP Apps against the ext-apps repository's own debug server (@modelcontextprotocol/server-debug):
// `debug-tool` has an app, `debug-refresh` and `debug-log` are for the app only. A host keeps a
// tool for its app only away from the model, and shows the app after a call.
import { readFileSync } from "node:fs";
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openRow, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole, openApp } from "./support.mjs";

test("a tool for its app only is left out of Claude's tools, and phase 1 and the card say why", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-apps-debug";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.appsDebug, "debug");

  // The card: every tool is there (an app would call them), each saying who may call it.
  const refresh = card.getByRole("listitem").filter({ hasText: "debug-refresh" });
  await refresh.locator("summary").first().click();
  await expect(refresh.getByText(/^For its app only \(MCP Apps\): not offered to Claude\. A call from here stands in for its app\. Its app \(ui:\/\/debug-tool\/mcp-app\.html\) is shown in the chat after Claude calls a tool of it\.$/)).toBeVisible();
  const tool = card.getByRole("listitem").filter({ hasText: "debug-tool" });
  await tool.locator("summary").first().click();
  await expect(tool.getByText(/^Comes with an app \(MCP Apps\); Claude is offered the tool as any other\./)).toBeVisible();
  await refresh.scrollIntoViewIfNeeded();
  await snap(page, "apps-card");

  // What Claude was sent: the tool with an app, not the two for the app only.
  await script(key, [reply({ text: "Nothing to do." })]);
  await ask(page, "What can the debug server do?");
  await expect(page.getByRole("log", { name: "Conversation" }).getByText("Nothing to do.")).toBeVisible();
  const [first] = await requests(key);
  const names = first.tools.map((t) => t.name);
  expect(names).toContain("debug_debug-tool");
  expect(names.filter((n) => n.startsWith("debug_"))).toEqual(["debug_debug-tool"]);

  // Phase 1 says why each was left out.
  await openRow(page, /tools array: \d+ tools/);
  const detail = page.getByRole("dialog").first();
  for (const name of ["debug-log", "debug-refresh"]) {
    await expect(detail.getByText(new RegExp(`left out: ${name} on MCP server "debug": for its app only \\(MCP Apps: _meta\\.ui\\.visibility has no "model"\\)`))).toBeVisible();
  }
  await expect(detail.getByText(/note: comes with an app \(ui:\/\/debug-tool\/mcp-app\.html\), shown in the chat after a call/)).toBeVisible();
  await snap(page, "apps-phase-one");
  console.expectNone();
});

// The debug app shown: after Claude's call of debug-tool, its app appears under the call, behind
// the sandbox proxy on the other loopback name (another site than the page), and every message
// between page and app is an arrow on the app's own lane; the app's own tools/call goes to its
// server and back, and starts no turn.
test("the debug app shows under Claude's call, sandboxed on another origin, with every message on its lane", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-apps-shown";
  await useFakeClaude(page, key);
  await addServer(page, URLS.appsDebug, "debug");
  await script(key, [reply(toolUse("debug_debug-tool", { contentType: "text" })), reply({ text: "The app shows the result." })]);
  await ask(page, "Show me the debug tool's app.");

  const figure = page.getByRole("figure", { name: /^App: debug-tool · debug #\d+$/ });
  await expect(figure).toBeVisible();
  await expect(figure.getByText(/^App ui:\/\/debug-tool\/mcp-app\.html · sandboxed on http:\/\/localhost:\d+, another site than this page/)).toBeVisible();
  // What it may reach, from the domains its resource declares (after the URL policy).
  await expect(figure.locator(".app-reach")).toHaveText(/^ · It (reaches nothing outside its own document|connects to |loads from ).*/);
  const outer = figure.locator("iframe");
  expect(await outer.getAttribute("sandbox")).toBe("allow-scripts allow-same-origin");
  expect(new URL(await outer.getAttribute("src")).origin).toBe(new URL(page.url()).origin.replace("127.0.0.1", "localhost"));
  const app = page.frameLocator('iframe[title^="App: debug-tool"]').frameLocator("iframe");
  await expect(app.getByRole("button", { name: "Call debug-refresh" })).toBeVisible({ timeout: 20_000 });
  await figure.scrollIntoViewIfNeeded();
  await snap(page, "apps-inline");

  // The lifecycle, in order, each message on the app's lane.
  for (const name of [
    /^App: debug-tool · debug #\d+ to Loopscope: ui\/notifications\/sandbox-proxy-ready/,
    /^Loopscope to App: debug-tool · debug #\d+: ui\/notifications\/sandbox-resource-ready/,
    /^App: debug-tool · debug #\d+ to Loopscope: ui\/initialize #/,
    /^Loopscope to App: debug-tool · debug #\d+: result #/,
    /^App: debug-tool · debug #\d+ to Loopscope: ui\/notifications\/initialized/,
    /^Loopscope to App: debug-tool · debug #\d+: ui\/notifications\/tool-input/,
    /^Loopscope to App: debug-tool · debug #\d+: ui\/notifications\/tool-result/,
  ]) {
    await expect(await timelineRow(page, name)).toBeVisible();
  }

  // The app calls an app-only tool on its own server: the call and its answer on the server's
  // lane, the request and the result on the app's, and Claude is not asked again.
  await app.getByRole("button", { name: "Call debug-refresh" }).click();
  await expect(await timelineRow(page, /^App: debug-tool · debug #\d+ to Loopscope: tools\/call #\d+, "?debug-refresh/)).toBeVisible();
  await expect(await timelineRow(page, /^Loopscope to MCP: debug: tools\/call #\d+, "?debug-refresh/)).toBeVisible();
  await openRow(page, /^Loopscope to App: debug-tool · debug #\d+: result #\d+, /);
  await snap(page, "apps-lane");
  expect((await requests(key)).length).toBe(2);
  await page.keyboard.press("Escape");

  // Fullscreen: the debug app asks for it but did not list it among the modes it supports
  // (appCapabilities.availableDisplayModes), so the page stays inline and says so in its answer.
  await app.getByRole("button", { name: "Fullscreen" }).click();
  await expect(await timelineRow(page, /^App: debug-tool · debug #\d+ to Loopscope: ui\/request-display-mode #\d+/)).toBeVisible();
  await expect(figure).not.toHaveClass(/\bfullscreen\b/);

  // A link: through the URL policy, then only if the user agrees; declined, nothing opens.
  const popups = [];
  page.on("popup", (p) => popups.push(p));
  await app.locator("#link-url").fill("javascript:alert(document.domain)");
  await app.getByRole("button", { name: "Open Link" }).click();
  await expect(await timelineRow(page, /^Loopscope to App: debug-tool · debug #\d+: error #\d+, .*Loopscope does not open this link/)).toBeVisible();
  await app.locator("#link-url").fill("https://modelcontextprotocol.io/extensions/apps");
  await app.getByRole("button", { name: "Open Link" }).click();
  const asks = figure.getByRole("group", { name: "The app asks" });
  await expect(asks).toContainText("https://modelcontextprotocol.io/extensions/apps (modelcontextprotocol.io)");
  await asks.getByRole("button", { name: "Don't open" }).click();
  await expect(asks).toBeHidden();
  expect(popups).toEqual([]);
  console.expectNone();
});

// An app is shown as soon as Claude starts writing its call: the debug app hears the arguments
// grow (tool-input-partial, each closed into an object) before the complete input and result.
test("an app shown while Claude writes its call hears the arguments grow, then the input and the result", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-apps-partial";
  await useFakeClaude(page, key);
  await addServer(page, URLS.appsDebug, "debug");
  const input = { contentType: "text", largeInput: "Arguments arrive a parameter at a time, and the app sees them grow." };
  await script(key, [
    { reply: { content: [{ tool_use: { name: "debug_debug-tool", input } }], event_delay_ms: 2000 } },
    reply({ text: "Done." }),
  ]);
  // (Not `ask`, which waits for the turn's end.)
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Show me the debug tool's app while you write the call.");
  await page.getByRole("button", { name: "Send" }).click();

  // The app is there while the call is still being written.
  const figure = page.getByRole("figure", { name: /^App: debug-tool · debug #\d+$/ });
  await expect(figure).toBeVisible();
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.locator(".tool-call.writing")).toBeVisible();
  const app = page.frameLocator('iframe[title^="App: debug-tool"]').frameLocator("iframe");
  await expect(app.locator("#event-log")).toContainText("ontoolinputpartial", { timeout: 20_000 });
  await figure.scrollIntoViewIfNeeded();
  await snap(page, "apps-partial");
  await expect(app.locator("#event-log")).toContainText("ontoolresult", { timeout: 30_000 });

  // On the app's lane: partial arguments, each an object so far, then the input, then the result.
  await openRow(page, /^Loopscope to App: debug-tool · debug #\d+: ui\/notifications\/tool-input-partial/);
  await expect(page.getByRole("dialog").first()).toContainText('"contentType": "text"');
  await page.keyboard.press("Escape");
  await expect(await timelineRow(page, /^Loopscope to App: debug-tool · debug #\d+: ui\/notifications\/tool-input(?!-)/)).toBeVisible();
  await expect(await timelineRow(page, /^Loopscope to App: debug-tool · debug #\d+: ui\/notifications\/tool-result/)).toBeVisible();
  console.expectNone();
});

/**
 * The demo server's chart app, shown after Claude's call (with the fake Messages API under
 * `key`, whose later replies are `then`): its figure in the chat and the app inside its frames.
 */
async function demoApp(page, key, then) {
  await openApp(page);
  await useFakeClaude(page, key);
  await page.getByRole("button", { name: "Add the demo server" }).click();
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  await script(key, [reply(toolUse("demo_chart_words", {})), ...then]);
  await ask(page, "Chart the words per note.");
  const figure = page.getByRole("figure", { name: /^App: chart_words · demo #\d+$/ });
  const app = page.frameLocator('iframe[title^="App: chart_words · demo"]').frameLocator("iframe");
  return { figure, app };
}

// The demo server's app, for a workshop with no server of its own: Claude asks for the chart;
// the app reads a note through its app-only tool; what it gives Claude (its context, and a
// message the user agrees to send) reaches the next request exactly as the timeline shows it.
test("the demo server's chart app: its own tool call, its context and its message, each only as the user agrees", async ({ page }) => {
  const console = watchConsole(page);
  const key = "sk-e2e-apps-demo";
  const then = [reply({ text: "Here is the chart." }), reply({ text: "It says MCP keeps clients apart from tools." })];
  const { figure, app } = await demoApp(page, key, then);
  const chat = page.getByRole("log", { name: "Conversation" });

  // A bar is a call to read_note, a tool for the app only: on the server's lane, and in the app.
  await app.getByRole("button", { name: "mcp" }).click();
  await expect(app.locator("#note")).toHaveText(/^mcp: MCP separates AI clients from tools and data/);
  await expect(await timelineRow(page, /^Loopscope to MCP: demo: tools\/call #\d+, "?read_note/)).toBeVisible();

  // Its context: kept under the app until the next message takes it.
  await app.getByRole("button", { name: "Tell Claude which note I'm reading" }).click();
  const pending = figure.getByText("Claude gets the app's context with your next message (ui/update-model-context)");
  await expect(pending).toBeVisible();

  // Its message: asked of the user first, then sent as the next turn, said as the app's.
  await app.getByRole("button", { name: "Ask Claude about this note" }).click();
  const asks = figure.getByRole("group", { name: "The app asks" });
  await expect(asks).toContainText('Explain the note "mcp" in one sentence');
  await asks.scrollIntoViewIfNeeded();
  await snap(page, "apps-demo-asks");
  await asks.getByRole("button", { name: "Send it" }).click();
  await expect(chat.getByText("It says MCP keeps clients apart from tools.")).toBeVisible();
  await expect(chat.getByText(/^The next message comes from the MCP App "chart_words · demo #\d+" \(ui\/message\); you agreed to send it\.$/)).toBeVisible();
  const sent = (await requests(key))[2];
  const last = sent.messages[sent.messages.length - 1];
  expect(last.content.map((b) => b.text)).toEqual([
    'Explain the note "mcp" in one sentence: MCP separates AI clients from tools and data: microservices for LLMs.',
    expect.stringMatching(/^\[Context from the MCP App "chart_words · demo #\d+" \(ui\/update-model-context\)\]\nThe user is reading the note "mcp" in the notebook app\.$/),
  ]);
  await expect(pending).toBeHidden();

  // Fullscreen, which this app lists among its modes; back inline from the page.
  await app.getByRole("button", { name: "Fullscreen" }).click();
  await expect(figure).toHaveClass(/\bfullscreen\b/);
  await expect(await timelineRow(page, /^Loopscope to App: chart_words · demo #\d+: ui\/notifications\/host-context-changed/)).toBeVisible();
  await snap(page, "apps-fullscreen");
  await figure.getByRole("button", { name: "Back to the chat" }).click();
  await expect(figure).not.toHaveClass(/\bfullscreen\b/);

  // Picture in picture: a small frame in a corner while the chat goes on under it.
  await app.getByRole("button", { name: "Picture in picture" }).click();
  await expect(figure).toHaveClass(/\bpip\b/);
  await snap(page, "apps-pip");
  await figure.getByRole("button", { name: "Back to the chat" }).click();
  await expect(figure).not.toHaveClass(/\bpip\b/);

  // The page's theme changes: the app is told, and follows.
  const dark = await app.locator("body").evaluate((b) => b.classList.contains("dark"));
  await page.getByRole("button", { name: /^Switch to (dark|light) theme$/ }).click();
  await expect(app.locator("body")).toHaveClass(dark ? /^(?!.*\bdark\b)/ : /\bdark\b/);
  console.expectNone();
});

// Break on an app's message (workshop mode): the app's own call stops before the page reads it;
// the page reads the user's edit, a dropped message is answered with why, and each stop is a row
// on the app's lane, while the loop itself never stopped.
test("break on an app's message: the page reads the user's edit, a dropped one is answered with why", async ({ page }) => {
  const console = watchConsole(page);
  const { app } = await demoApp(page, "sk-e2e-apps-break", [reply({ text: "Here is the chart." })]);
  await expect(app.getByRole("button", { name: "mcp" })).toBeVisible();
  await expect(page.getByRole("log", { name: "Conversation" }).getByText("Here is the chart.")).toBeVisible();

  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop", { exact: true }).click();
  const breakpoint = workshop.getByLabel("when an MCP App sends the page a message");
  await breakpoint.check();

  // The bar's call to read_note stops: the user makes it read another note.
  await app.getByRole("button", { name: "mcp" }).click();
  const paused = page.getByRole("region", { name: "Paused on an MCP App's message" });
  await expect(paused).toBeVisible();
  await expect(paused.locator(".paused-what")).toHaveText(
    /^tools\/call from App: chart_words · demo #\d+ — stopped when an MCP App sends the page a message\.$/,
  );
  await expect(paused.getByRole("button", { name: /^Step/ })).toHaveCount(0);
  const editor = paused.getByLabel("As the page will read it");
  await expect(editor).toHaveValue(/"id": "mcp"/);
  // The app waits for the answer to the id it sent: an edit of the id is refused.
  await editor.fill((await editor.inputValue()).replace(/"id": \d+/, '"id": 999'));
  await expect(paused.getByRole("status")).toContainText("Cannot be sent: the id must stay as it is");
  await paused.getByRole("button", { name: "Restore the original" }).click();
  await editor.fill((await editor.inputValue()).replace('"id": "mcp"', '"id": "layers"'));
  await expect(paused.getByRole("status")).toContainText("Edited: valid");
  await snap(page, "apps-paused-message");
  await paused.getByRole("button", { name: "Continue (F8)" }).click();
  await expect(app.locator("#note")).toHaveText(/^layers: HTTP status is the truck/);
  // Then the app says its new height: every message it sends stops, this one too.
  const what = paused.locator(".paused-what");
  await expect(what).toHaveText(/^ui\/notifications\/size-changed from App: chart_words/);
  await page.keyboard.press("F8");

  // Dropped: the app is answered with why, and the server never hears of it.
  await app.getByRole("button", { name: "jsonrpc" }).click();
  await expect(what).toHaveText(/^tools\/call from App: chart_words/);
  await paused.getByRole("button", { name: "Drop this message" }).click();
  await expect(app.locator("#note")).toHaveText("Could not read it: The user dropped tools/call at a breakpoint in Loopscope.");
  await breakpoint.uncheck();

  await expect(await timelineRow(page, /^Note: paused on an app's message · tools\/call from App: chart_words · demo #\d+, breakpoint, edited/)).toBeVisible();
  await expect(await timelineRow(page, /^Note: paused on an app's message · tools\/call from App: chart_words · demo #\d+, breakpoint, skipped/)).toBeVisible();
  console.expectNone();
});

// The demo app saves a note (ui/download-file): only as the user agrees, as the file it named.
test("the demo app saves a note only when the user agrees", async ({ page }) => {
  const console = watchConsole(page);
  const { figure, app } = await demoApp(page, "sk-e2e-apps-save", [reply({ text: "Here is the chart." })]);
  await app.getByRole("button", { name: "jsonrpc" }).click();
  await app.getByRole("button", { name: "Save this note" }).click();
  const asks = figure.getByRole("group", { name: "The app asks" });
  await expect(asks.locator("pre")).toHaveText(/^jsonrpc\.txt \(text\/plain, 63 bytes\)$/);
  await asks.scrollIntoViewIfNeeded();
  await snap(page, "apps-save");
  await asks.getByRole("button", { name: "Don't save" }).click();
  await expect(app.locator("#note")).toHaveText("Not saved: The user did not save the files.");

  await app.getByRole("button", { name: "jsonrpc" }).click();
  await app.getByRole("button", { name: "Save this note" }).click();
  const saved = page.waitForEvent("download");
  await asks.getByRole("button", { name: "Save", exact: true }).click();
  const file = await saved;
  expect(file.suggestedFilename()).toBe("jsonrpc.txt");
  expect(readFileSync(await file.path(), "utf8")).toBe("JSON-RPC 2.0 is a strict contract: jsonrpc, method, params, id.");
  await expect(app.locator("#note")).toHaveText("Saved jsonrpc.txt.");
  console.expectNone();
});

// The ext-apps repository's plainest example (@modelcontextprotocol/server-basic-vanillajs, which
// speaks up to 2025-11-25): its app shows the time from the tool's structuredContent, fetches it
// again through the page, and its Send Message waits for the user.
test("the basic-vanillajs example app: its result, its own call for a new time, and a message the user declines", async ({ page }) => {
  // The app logs the refusal it is sent, in its own frame's console.
  const console = watchConsole(page, ["Message send error: ProtocolError: The user did not send the app's message."]);
  await openApp(page);
  const key = "sk-e2e-apps-basic";
  await useFakeClaude(page, key);
  await addServer(page, URLS.appsBasic, "basic");
  await script(key, [reply(toolUse("basic_get-time", {})), reply({ text: "The app shows the time." })]);
  await ask(page, "What time is it on the server?");
  const figure = page.getByRole("figure", { name: /^App: get-time · basic #\d+$/ });
  const app = page.frameLocator('iframe[title^="App: get-time · basic"]').frameLocator("iframe");
  const time = app.locator("#server-time");
  await expect(time).toHaveText(/^\d{4}-\d\d-\d\dT/, { timeout: 20_000 });
  const first = await time.textContent();

  await page.waitForTimeout(1100);
  await app.getByRole("button", { name: "Get Server Time" }).click();
  await expect(time).not.toHaveText(first);
  await expect(time).toHaveText(/^\d{4}-\d\d-\d\dT/);
  await expect(await timelineRow(page, /^App: get-time · basic #\d+ to Loopscope: tools\/call #\d+, "?get-time/)).toBeVisible();

  await app.locator("#message-text").fill("Hello from the app");
  await app.getByRole("button", { name: "Send Message" }).click();
  const asks = figure.getByRole("group", { name: "The app asks" });
  await expect(asks).toContainText("Hello from the app");
  await asks.getByRole("button", { name: "Don't send" }).click();
  await expect(await timelineRow(page, /^Loopscope to App: get-time · basic #\d+: error #\d+, .*The user did not send the app's message/)).toBeVisible();
  expect((await requests(key)).length).toBe(2);
  await figure.scrollIntoViewIfNeeded();
  await snap(page, "apps-basic");

  // A new conversation ends the app properly: the SDK's app is asked to tear down and answers
  // before its frame goes; the lane keeps both.
  await page.getByRole("button", { name: "New conversation" }).click();
  await expect(figure).toBeHidden();
  await expect(await timelineRow(page, /^Loopscope to App: get-time · basic #\d+: ui\/resource-teardown #/)).toBeVisible();
  await expect(await timelineRow(page, /^App: get-time · basic #\d+ to Loopscope: result #/)).toBeVisible();
  await expect(page.getByText("Ask something that needs a tool. Phase 1 starts when you send.")).toBeVisible();
  console.expectNone();
});

// An app that asks to be closed (ui/notifications/request-teardown) gets the same end as one the
// page removes: ui/resource-teardown, its answer, then the frame goes and says why.
test("the demo app asks to be closed: the page sends ui/resource-teardown, waits for its answer, then removes it", async ({ page }) => {
  const console = watchConsole(page);
  const { figure, app } = await demoApp(page, "sk-e2e-apps-close", [reply({ text: "Here is the chart." })]);
  await expect(app.getByRole("button", { name: "mcp" })).toBeVisible();
  await app.getByRole("button", { name: "Close this app" }).click();
  await expect(figure.getByRole("status")).toHaveText("The app asked to be closed.");
  await expect(figure.locator("iframe")).toHaveCount(0);
  await figure.scrollIntoViewIfNeeded();
  await snap(page, "apps-closed");
  for (const name of [
    /^App: chart_words · demo #\d+ to Loopscope: ui\/notifications\/request-teardown/,
    /^Loopscope to App: chart_words · demo #\d+: ui\/resource-teardown #/,
    /^App: chart_words · demo #\d+ to Loopscope: result #/,
  ]) {
    await expect(await timelineRow(page, name)).toBeVisible();
  }
  await openRow(page, /^Loopscope to App: chart_words · demo #\d+: ui\/resource-teardown #/);
  await expect(page.getByRole("dialog").getByText('"reason": "The app asked to be closed."')).toBeVisible();
  console.expectNone();
});
