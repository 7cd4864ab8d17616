// The article's loop in the real build: two real MCP servers and a local function in one turn,
// the four phases on the timeline, and an arrow's raw view.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, frames, openRow, openApp, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

test("one turn across server-everything, the Python SDK server and a local function", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-loop";
  await useFakeClaude(page, key);
  const everything = await addServer(page, URLS.everything, "everything");
  await expect(everything.locator(".server-info strong")).toHaveText("2025-11-25");
  await addServer(page, URLS.python, "notes");
  await snap(page, "servers-connected");

  await script(key, [
    reply(
      { text: "I'll ask both servers and check the weather." },
      toolUse("everything_echo", { message: "hello from the loop" }),
      toolUse("notes_search_notes", { query: "jsonrpc" }),
      toolUse("get_weather", { city: "Tokyo" }),
    ),
    { summarize: {} },
  ]);
  await ask(page, "Echo hello, search the notes for jsonrpc, and tell me the weather in Tokyo.");

  // The chat: each call with where it went and what came back, then Claude's answer.
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("→ tools/call echo on everything")).toBeVisible();
  await expect(chat.getByText("→ tools/call search_notes on notes")).toBeVisible();
  await expect(chat.getByText("→ local function get_weather")).toBeVisible();
  await expect(chat.getByText(/Tool results — .*Echo: hello from the loop/)).toBeVisible();
  await expect(chat.getByText("Claude finished its answer (end_turn).")).toBeVisible();
  // Usage per answer: the first request wrote the prompt cache, the second read it.
  const usage = chat.locator(".usage");
  await expect(usage).toHaveCount(2);
  await expect(usage.nth(0)).toHaveText(/^tokens — input [\d,]+ · cache write [\d,]+ · output [\d,]+$/);
  await expect(usage.nth(1)).toHaveText(/^tokens — input [\d,]+ · cache read [\d,]+ · cache write [\d,]+ · output [\d,]+$/);
  await snap(page, "loop-answered");

  // What Claude was sent: the merged tools array, then one user message of three results.
  const [first, second] = await requests(key);
  const names = first.tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["get_weather", "calculate", "everything_echo", "notes_search_notes"]));
  const results = second.messages[2].content;
  expect(results.map((b) => b.type)).toEqual(["tool_result", "tool_result", "tool_result"]);

  // The timeline: all four phases, with the MCP lanes.
  for (const band of ["Phase 1: Aggregate tools (round 1)", "Phase 2: Claude emits tool_use (round 1)", "Phase 3: Client routes (round 1)", "Phase 4: tool_result returns (round 1)"]) {
    await timelineRow(page, band);
  }
  await expect(page.locator(".tl-lanes")).toContainText("MCP: everything");
  await expect(page.locator(".tl-lanes")).toContainText("MCP: notes");
  await openRow(page, /Loopscope to MCP: notes: tools\/call #\d+/);
  const detail = page.getByRole("dialog", { name: /tools\/call/ });
  await expect(detail.getByRole("heading", { name: "Layers crossed" })).toBeVisible();
  await expect(detail.getByText("What Claude sees").first()).toBeVisible();
  await expect(detail.getByText("What the client did").first()).toBeVisible();
  await expect(detail.getByText(/HTTP request: POST http:\/\/127\.0\.0\.1/)).toBeVisible();
  await snap(page, "timeline-detail-tools-call");
  await page.keyboard.press("Escape");
  await expect(detail).toBeHidden();

  await openRow(page, /Loopscope to Claude API: POST \/v1\/messages/);
  const request = page.getByRole("dialog", { name: "POST /v1/messages" });
  await expect(request.getByLabel("What Claude sees")).toContainText('"name": "everything_echo"');
  await expect(request.getByLabel("What the client did")).toContainText("everything_echo → echo on MCP server \"everything\"");
  // The key is masked wherever the request is shown.
  await expect(request).not.toContainText(key);
  await expect(request).toContainText("x-api-key: ••••••");
  await snap(page, "timeline-detail-messages-request");
  await page.keyboard.press("Escape");

  // The same session on a projector (1280×720, the default) and on a wide screen: nothing spills
  // sideways, and the timeline gets the extra room; nor on smaller screens.
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  const narrow = (await page.locator(".tl").boundingBox()).width;
  await page.setViewportSize({ width: 1920, height: 1080 });
  expect(await overflow()).toBeLessThanOrEqual(0);
  expect((await page.locator(".tl").boundingBox()).width).toBeGreaterThan(narrow * 1.5);
  await snap(page, "loop-wide");
  // An older 1024×768 projector, and a phone (390×844), where everything stacks.
  for (const [width, height] of [[1024, 768], [390, 844]]) {
    await page.setViewportSize({ width, height });
    expect(await overflow(), `${width}×${height}`).toBeLessThanOrEqual(0);
  }
  await snap(page, "loop-phone");
  console.expectNone();
});

test("the timeline works by keyboard and collapses phases", async ({ page }) => {
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await ask(page, "What's the weather in Tokyo, and what is 17 * 23?");
  const list = page.getByRole("listbox", { name: /Timeline events/ });
  await list.focus();
  // Home: the first row (the user's message); Enter opens its details, Escape closes them.
  await page.keyboard.press("Home");
  await expect(list).toHaveAttribute("aria-activedescendant", "tl-row-0");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog", { name: "user message" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Close details" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "user message" })).toBeHidden();
  // The next row is phase 1's band: Enter collapses it and expands it again.
  await list.focus();
  await page.keyboard.press("ArrowDown");
  const band = list.getByRole("option", { name: "Phase 1: Aggregate tools (round 1)" });
  await page.keyboard.press("Enter");
  await expect(band).toHaveAttribute("aria-expanded", "false");
  await snap(page, "timeline-phase-collapsed");
  await page.keyboard.press("Enter");
  await expect(band).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Close details" })).toBeFocused();
  await snap(page, "timeline-keyboard-detail");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Close details" })).toBeHidden();

  // A band belongs to its turn: folding the first turn's phase 1 leaves the second turn's open.
  const firstId = await band.getAttribute("id");
  await ask(page, "What time is it in Tokyo (UTC offset +09:00)?");
  await list.focus();
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowDown");
  const first = list.locator(`#${firstId}`);
  await page.keyboard.press("Enter");
  await expect(first).toHaveAttribute("aria-expanded", "false");
  const second = list.locator(`[role=option][aria-label="Phase 1: Aggregate tools (round 1)"]:not(#${firstId})`);
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  for (let i = 0; i < 40 && (await second.count()) === 0; i++) {
    await list.evaluate((el) => (el.scrollTop -= el.clientHeight / 2));
    await frames(page);
  }
  await expect(second).toHaveAttribute("aria-expanded", "true");
  await expect(second.locator(".caret")).toHaveText("▾");
});

test("scrolling up while rows arrive stops following: the list stays where the user put it", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.python, "notes");
  await card.locator("summary", { hasText: "slow_count" }).click();
  const form = card.getByRole("form", { name: "Call slow_count" });
  // A progress row every 80 ms for 4 s (the server counts to 50 at most).
  await form.getByLabel(/^steps/i).fill("50");
  await form.getByLabel(/^delay/i).fill("80");
  await form.getByRole("button", { name: "Call tool" }).click();
  const list = page.getByRole("listbox", { name: /Timeline events/ });
  await expect.poll(() => list.evaluate((el) => el.scrollHeight > 2 * el.clientHeight)).toBe(true);
  // Up to the top while rows keep coming, a few frames' look, then back down to follow again.
  const pulledBack = [];
  for (let i = 0; i < 25; i++) {
    await list.evaluate((el) => (el.scrollTop = 0));
    await frames(page, 4);
    const top = await list.evaluate((el) => el.scrollTop);
    if (top > 0) pulledBack.push(top);
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await frames(page, 2);
  }
  expect(pulledBack, "times the list jumped back to the bottom after the user scrolled up").toEqual([]);
  await expect(card.getByRole("status").filter({ hasText: "counted to 50" })).toBeVisible({ timeout: 20_000 });
  console.expectNone();
});
