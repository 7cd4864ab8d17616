// Lessons from a link, presenter view, and the page on conference Wi-Fi: a loading screen from
// index.html alone, a clear sentence when the app cannot load, and the page (with the demo
// model, the demo server and the built-in lessons) working offline after one visit.
import { test, expect } from "@playwright/test";
import { appMounted, lowContrast, openApp, snap, watchConsole, timelineRow } from "./support.mjs";
import { URLS } from "./fixtures.mjs";

const chat = (page) => page.getByRole("log", { name: "Conversation" });

test("a built-in lesson from ?lesson= connects the demo server, stops at each phase it names, and walks step by step", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page, "./?lesson=lessons/four-phases.json");
  const lesson = page.getByRole("region", { name: "The four phases of a tool call" });
  await expect(lesson).toContainText("Step 1 of 5");
  await expect(lesson).toContainText("Claude never talks to an MCP server");
  await expect(page.getByText("Demo model", { exact: true })).toBeVisible();
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Stop at phase 1/ })).toHaveAttribute("aria-pressed", "true");
  await snap(page, "lesson-four-phases");

  await lesson.getByRole("button", { name: 'Ask: Search the notes for "jsonrpc".' }).click();
  const paused = page.getByRole("region", { name: /Paused at phase 1/ });
  await expect(paused.getByLabel("As it will be sent")).toHaveValue(/"name": "demo_search_notes"/);
  await snap(page, "lesson-paused-phase-1");
  await page.keyboard.press("F8");
  // Phase 1 again, round 2: the request that carries the tool_result.
  await expect(page.getByRole("region", { name: /Paused at phase 1/ }).getByRole("heading")).toContainText("round 2");
  await page.keyboard.press("F8");
  await expect(chat(page).getByText(/demo_search_notes said: jsonrpc: JSON-RPC 2.0 is a strict contract/)).toBeVisible();

  // Step 2 sets exactly its own breakpoint: phase 2, not phase 1.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(lesson).toContainText("Step 2 of 5");
  await expect(page.getByRole("button", { name: /^Stop at phase 1/ })).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByRole("button", { name: /^Stop at phase 2/ })).toHaveAttribute("aria-pressed", "true");
  await lesson.getByRole("button", { name: /^Ask:/ }).click();
  await expect(page.getByRole("region", { name: /Paused at phase 2/ })).toBeVisible();
  await page.keyboard.press("F8");
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });

  // The last step: a local function, no breakpoint.
  for (let i = 0; i < 3; i++) await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(lesson).toContainText("Step 5 of 5");
  await expect(lesson.getByRole("button", { name: "Next step →" })).toBeDisabled();
  await lesson.getByRole("button", { name: "Ask: What is 17 * 23?" }).click();
  await expect(chat(page).getByText(/calculate said: 17 \* 23 = 391/)).toBeVisible();
  await lesson.getByRole("button", { name: "Leave the lesson" }).click();
  await expect(lesson).toBeHidden();
  await expect(page.getByRole("button", { name: /^Stop at phase \d/, pressed: true })).toHaveCount(0);
  // The lesson turned the demo model on; leaving it gives back the user's own choice.
  await expect(page.getByRole("radio", { name: "Claude API" })).toBeChecked();
  console.expectNone();
});

test("the error-layers lesson breaks the demo server at the layer each step names, and Claude gets is_error each time", async ({ page }) => {
  const console = watchConsole(page, ["Failed to load resource"]);
  await openApp(page);
  const panel = page.getByRole("region", { name: "Workshop" });
  await panel.getByText("Workshop").click();
  await panel.getByRole("button", { name: "Where a tool call can fail, and what Claude receives" }).click();
  const lesson = page.getByRole("region", { name: "Where a tool call can fail, and what Claude receives" });
  await expect(lesson).toContainText("Injects: ");
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();

  await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(lesson).toContainText("The truck: an HTTP status");
  await lesson.getByRole("button", { name: /^Ask:/ }).click();
  await expect(chat(page).getByText(/demo_search_notes failed: .*HTTP 500/)).toBeVisible();
  await timelineRow(page, /injected/);
  await snap(page, "lesson-error-layers-http-500");

  await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(lesson).toContainText("a JSON-RPC error");
  await lesson.getByRole("button", { name: /^Ask:/ }).click();
  await expect(chat(page).getByText(/demo_search_notes failed: .*-32603/)).toBeVisible();
  console.expectNone();
});

test("a step can script the demo model: three tool calls in one answer, their three results in one user message", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page, "./?lesson=lessons/parallel-calls.json");
  const lesson = page.getByRole("region", { name: /Parallel tool calls/ });
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(lesson).toContainText("Three at once, scripted");
  await lesson.getByRole("button", { name: "Ask: Three things at once, please." }).click();
  const paused = page.getByRole("region", { name: /Paused at phase 4/ });
  const payload = JSON.parse(await paused.getByLabel("As it will be sent").inputValue());
  expect(payload.role).toBe("user");
  expect(payload.content.map((b) => b.type)).toEqual(["tool_result", "tool_result", "tool_result"]);
  await snap(page, "lesson-three-results");
  await page.keyboard.press("F8");
  await expect(chat(page).getByText("(Demo model, scripted by the lesson.) I'll ask for all three at once.")).toBeVisible();
  await expect(chat(page).getByText(/calculate said: 17 \* 23 = 391/)).toBeVisible();
  // Leaving the step takes its script away: the model answers on its own again.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await lesson.getByRole("button", { name: "Leave the lesson" }).click();
  await page.getByLabel("Demo model (no key)").check();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What is 6 * 7?");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(chat(page).getByText(/calculate said: 6 \* 7 = 42/)).toBeVisible();
  console.expectNone();
});

test("the thinking lesson: the demo model's thinking shown, sent back unchanged, and refused once changed at the breakpoint", async ({ page }) => {
  const console = watchConsole(page, ["status of 400"]);
  await openApp(page, "./?lesson=lessons/thinking.json");
  const lesson = page.getByRole("region", { name: "Thinking in the loop: shown, sent back, and checked" });
  await expect(lesson).toContainText("Step 1 of 3");
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  await lesson.getByRole("button", { name: "Ask: What is 17 * 23?" }).click();
  const fold = chat(page).locator("details.thinking").first();
  await expect(fold.locator("summary")).toHaveText("Thinking");
  await fold.locator("summary").click();
  await expect(fold).toContainText("(The demo model's reasoning, made by rules, not Claude's.)");
  await expect(chat(page).getByText(/calculate said: 17 \* 23 = 391/)).toBeVisible();
  await expect(await timelineRow(page, /^Note: thinking · \(The demo model's reasoning/)).toBeVisible();

  // Step 3: change the block at the second request's stop; the demo refuses it as the API does.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(lesson).toContainText("Step 3 of 3");
  await lesson.getByRole("button", { name: "Ask: What is 17 * 23?" }).click();
  // The request breakpoint stops before each request goes to Claude (the end of phase 1).
  const paused = page.getByRole("region", { name: /Paused at phase 1/ });
  await expect(paused.getByRole("heading")).toContainText("round 1");
  await page.keyboard.press("F8");
  await expect(paused.getByRole("heading")).toContainText("round 2");
  const editor = paused.getByLabel("As it will be sent");
  await expect(editor).toHaveValue(/"type": "thinking"/);
  // In the latest assistant message: the last occurrence (step 1's turn is earlier in the history).
  const payload = await editor.inputValue();
  const at = payload.lastIndexOf("Words of the question");
  await editor.fill(payload.slice(0, at) + "Words of the prompt" + payload.slice(at + "Words of the question".length));
  await expect(paused.getByRole("status")).toContainText("Edited: valid");
  await snap(page, "lesson-thinking-edited");
  await page.keyboard.press("F8");
  await expect(chat(page).getByText(/blocks in the latest assistant message cannot be modified/)).toBeVisible();
  await snap(page, "lesson-thinking-400");
  console.expectNone();
});

test("a lesson in the link's fragment opens; a lesson that is missing or broken says why", async ({ page }) => {
  const lesson = {
    lesson: 1, title: "A short one", model: "demo", servers: [{ demo: true }],
    steps: [{ title: "Only step", text: "Look at <b>this</b>: it stays text.", ask: "What is 2 + 2?" }],
  };
  const encoded = Buffer.from(JSON.stringify(lesson)).toString("base64url");
  await openApp(page, `./#lesson=${encoded}`);
  const region = page.getByRole("region", { name: "A short one" });
  await expect(region).toContainText("Step 1 of 1");
  await expect(region).toContainText("Look at <b>this</b>: it stays text.");
  await region.getByRole("button", { name: "Ask: What is 2 + 2?" }).click();
  await expect(chat(page).getByText(/calculate said: 2 \+ 2 = 4/)).toBeVisible();

  await openApp(page, "./?lesson=lessons/nope.json");
  await expect(page.getByRole("alert").filter({ hasText: "The lesson cannot be opened" })).toContainText(/lessons\/nope\.json answered HTTP 404/);
  const bad = Buffer.from(JSON.stringify({ lesson: 1, title: "x", steps: [{ text: "t", faults: [{ fault: "http-500", server: "notes" }] }] })).toString("base64url");
  await openApp(page, `./#lesson=${bad}`);
  await page.reload();
  await expect(page.getByRole("alert").filter({ hasText: "cannot be opened" })).toContainText('steps[0].faults[0].server: "notes" is not one of the lesson\'s servers');
});

test("a lesson's own server connects only when the user agrees, and its faults then land on that real server", async ({ page }) => {
  const console = watchConsole(page, ["Failed to load resource"]);
  const lesson = {
    lesson: 1, title: "A real server, broken", model: "demo",
    servers: [{ url: URLS.python, label: "notes" }],
    steps: [{
      text: "The server answers 500 once.", ask: "Search my notes.",
      replies: [{ text: "Searching.", tool_use: [{ name: "notes_search_notes", input: { query: "mcp" } }] }],
      faults: [{ fault: "http-500", server: "notes", tool: "search_notes" }],
    }],
  };
  await openApp(page, `./#lesson=${Buffer.from(JSON.stringify(lesson)).toString("base64url")}`);
  const region = page.getByRole("region", { name: "A real server, broken" });
  const consent = region.getByRole("group", { name: "Servers this lesson uses" });
  await expect(consent).toContainText(URLS.python);
  await expect(page.getByRole("article", { name: "notes" })).toHaveCount(0);
  await expect(page.getByRole("alert")).toHaveCount(0);
  await snap(page, "lesson-asks-to-connect");
  // The consent lists what the lesson's script will call, before anything is called.
  await expect(consent).toContainText('step 1: notes_search_notes {"query":"mcp"}');
  await consent.getByRole("button", { name: "Use these servers" }).click();
  await expect(consent).toBeHidden();
  await expect(page.getByRole("article", { name: "notes" }).getByText("connected", { exact: true })).toBeVisible();
  await region.getByRole("button", { name: "Ask: Search my notes." }).click();
  await expect(chat(page).getByText(/notes_search_notes failed: .*HTTP 500 from the server \(Internal Server Error\)/)).toBeVisible();
  await timelineRow(page, /injected/);
  console.expectNone();
});

test("an instructor opens a lesson from a file and hands out the link that carries it", async ({ page, context }, info) => {
  const lesson = { lesson: 1, title: "From my laptop", model: "demo", servers: [{ demo: true }],
    steps: [{ title: "One", text: "First." }, { title: "Two", text: "Second.", breakpoints: ["tool_use"] }] };
  const file = info.outputPath("my-lesson.json");
  (await import("node:fs")).writeFileSync(file, JSON.stringify(lesson, null, 2));
  await openApp(page);
  const panel = page.getByRole("region", { name: "Workshop" });
  await panel.getByText("Workshop").click();
  await panel.getByLabel("Open a lesson file…").setInputFiles(file);
  await expect(page.getByRole("region", { name: "From my laptop" })).toContainText("Step 1 of 2");
  const link = panel.getByRole("link", { name: "a link that carries this lesson" });
  const href = await link.getAttribute("href");
  expect(href).toMatch(/#lesson=[A-Za-z0-9_-]+$/);
  // Whoever opens the link gets the same lesson.
  const attendee = await context.newPage();
  await openApp(attendee, href);
  const region = attendee.getByRole("region", { name: "From my laptop" });
  await region.getByRole("button", { name: "Next step →" }).click();
  await expect(region).toContainText("Second.");
  await expect(attendee.getByRole("button", { name: /^Stop at phase 2/ })).toHaveAttribute("aria-pressed", "true");
  await attendee.close();
});

test("a lesson, its consent box and its problems read at 4.5:1 in light and dark", async ({ page }) => {
  const lesson = { lesson: 1, title: "Contrast", model: "demo", servers: [{ url: URLS.python, label: "notes" }],
    steps: [{ title: "One", text: "Read.", do: "Do.", look: "Look.", ask: "Ask.", breakpoints: [2],
      faults: [{ fault: "http-500", server: "notes" }] }] };
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    await openApp(page, `./#lesson=${Buffer.from(JSON.stringify(lesson)).toString("base64url")}`);
    await page.reload();
    await expect(page.getByRole("region", { name: "Contrast" })).toContainText("This lesson wants to use these servers");
    expect(await lowContrast(page), scheme).toEqual([]);
    await snap(page, `lesson-${scheme}`);
  }
});

test("presenter view and an embedded page stay usable at 1280×720", async ({ page }) => {
  await openApp(page, "./?lesson=lessons/parallel-calls.json");
  await page.getByRole("button", { name: "Presenter view" }).click();
  await expect(page.getByRole("button", { name: "Presenter view" })).toHaveAttribute("aria-pressed", "true");
  const lesson = page.getByRole("region", { name: /Parallel tool calls/ });
  // The lesson's server first (as the other lesson tests do): asked before it is connected, the
  // turn's tools array has only the page's functions (CI saw it on a loaded machine).
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  await lesson.getByRole("button", { name: /^Ask:/ }).click();
  await expect(chat(page).getByText(/get_weather said:/)).toBeVisible();
  await expect(chat(page).getByText(/demo_search_notes said:/)).toBeVisible();
  const size = await page.evaluate(() => getComputedStyle(document.querySelector(".chat") ?? document.body).fontSize);
  expect(parseFloat(size)).toBeGreaterThanOrEqual(18);
  await snap(page, "lesson-presenter");
  // Nothing is cut off sideways: the page does not scroll horizontally.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);

  // In an iframe, as a slide deck or a course page embeds it.
  const url = new URL("./?lesson=lessons/four-phases.json&presenter", page.url()).href;
  // The slide deck is a page of its own, on another origin of this machine (this page rewritten
  // would keep this page's CSP; a page Playwright makes up, or about:blank, counts as a public
  // one, which Chrome's Local Network Access keeps from framing 127.0.0.1).
  const site = new URL("../../target/e2e/site/", import.meta.url).pathname;
  (await import("node:fs")).writeFileSync(`${site}slides.html`,
    `<!doctype html><title>Slides</title><iframe src="${url}" style="width:1260px;height:700px;border:0"></iframe>`);
  await page.goto(new URL("/slides.html", page.url()).href.replace("127.0.0.1", "localhost"));
  const frame = page.frameLocator("iframe");
  await expect(frame.getByRole("region", { name: "The four phases of a tool call" })).toContainText("Step 1 of 5");
  await expect(frame.getByRole("button", { name: "Presenter view" })).toHaveAttribute("aria-pressed", "true");
  await snap(page, "lesson-embedded");
});

test("on conference Wi-Fi: a loading screen at once, a clear sentence when the app cannot load, and the page offline after one visit", async ({ page, context }) => {
  // The app's wasm held back: the loading screen from index.html alone.
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(/_bg\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("./");
  await expect(page.getByRole("status").getByRole("heading", { name: "Loopscope" })).toBeVisible();
  await expect(page.getByText(/Loading the app/)).toBeVisible();
  await snap(page, "boot-loading");
  release();
  await appMounted(page);
  await expect(page.locator("#boot")).toHaveCount(0);
  await page.unroute(/_bg\.wasm$/);

  // Once the service worker holds the build, the page opens with no network at all.
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return reg.active?.state;
  });
  // One cache per build, named after it (assets/sw.js).
  const cachedWasm = () => page.evaluate(async () => {
    for (const name of await caches.keys()) {
      if ((await (await caches.open(name)).keys()).some((r) => r.url.endsWith("_bg.wasm"))) return true;
    }
    return false;
  });
  await expect.poll(cachedWasm).toBe(true);
  await context.setOffline(true);
  await page.goto("./?lesson=lessons/parallel-calls.json");
  await appMounted(page);
  const lesson = page.getByRole("region", { name: /Parallel tool calls/ });
  await lesson.getByRole("button", { name: /^Ask:/ }).click();
  await expect(chat(page).getByText(/get_weather said:/)).toBeVisible();
  await snap(page, "offline-lesson");
  await context.setOffline(false);
});

test("on a slow network the loading screen counts the download: KB of KB, and a share", async ({ page, context }) => {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 50, downloadThroughput: 400_000, uploadThroughput: 400_000 });
  await page.goto("./");
  const what = page.locator("#boot-what");
  await expect(what).toHaveText(/^Loading the app: \d+ of \d+ KB \(\d+ %\)…$/, { timeout: 20_000 });
  const [current, total] = (await what.textContent()).match(/\d+/g).map(Number);
  expect(current).toBeLessThanOrEqual(total);
  // The first chunk of wasm, near 1 MB before compression (docs/size.md).
  expect(Number(await page.locator("#boot-progress").getAttribute("max"))).toBeGreaterThan(500_000);
  await snap(page, "boot-progress");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await appMounted(page, { timeout: 30_000 });
});

test("a wasm that does not load gets a sentence, not a blank page", async ({ page }) => {
  await page.route(/_bg\.wasm$/, (route) => route.fulfill({ status: 200, contentType: "application/wasm", body: "not wasm" }));
  await page.goto("./");
  await expect(page.getByText(/The app could not start/)).toBeVisible();
  await snap(page, "boot-failed");
});

test("the tool_choice lesson: none answers in text, a named tool is called first, any with parallel off calls one", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page, "./?lesson=lessons/tool-choice.json");
  const lesson = page.getByRole("region", { name: "tool_choice: who decides whether a tool is called" });
  await expect(lesson).toContainText("Step 1 of 4");
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  const ask = () => lesson.getByRole("button", { name: /^Ask: What's the weather in Tokyo/ }).click();
  const done = () => expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden();

  // Step 2, none: the tools are described, no call comes, the chat says why.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await ask();
  await done();
  const last = () => chat(page).locator(".msg.assistant").last();
  await expect(last()).toContainText("tool_choice is none");
  await expect(last()).toContainText("I would have called get_weather and calculate");

  // Step 3, a named tool: the answer is the calculate call, with no text before it.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await ask();
  await done();
  await expect(chat(page).getByText("calculate said: 17 * 23 = 391")).toBeVisible();
  await expect(await timelineRow(page, /tool_use calculate/)).toBeVisible();
  await snap(page, "lesson-tool-choice-named");

  // Step 4, any with parallel calls off: one call where step 1 had two.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await ask();
  await done();
  await expect(last()).toContainText("Here is what the tools returned");
  expect((await last().innerText()).match(/ said: /g)).toHaveLength(1);
  console.expectNone();
});

test("the connector lesson, no key: the demo model plays the API's connector; the page's breakpoint stops only its own loop", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page, "./?lesson=lessons/connector.json");
  const lesson = page.getByRole("region", { name: "Who calls the MCP server: this page, or the API's MCP connector" });
  await expect(lesson).toContainText("Step 1 of 4");
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  const done = () => expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });

  // Step 2: both ways. The page's loop calls the demo server; the demo's connector calls it itself.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await lesson.getByRole("button", { name: 'Ask both ways: Search the notes for "jsonrpc"' }).click();
  const panel = page.getByRole("region", { name: "Both ways compared" });
  await expect(panel).toBeVisible({ timeout: 30_000 });
  await expect(chat(page).getByText(/the demo model plays the API: it calls the demo server from its own code/)).toBeVisible();
  await expect(chat(page).getByText("search_notes run by the Claude API")).toBeVisible();
  const cells = async (what) => panel.getByRole("row", { name: new RegExp(`^${what}`) }).getByRole("cell").allTextContents();
  expect(await cells("tools/call this page sent to them")).toEqual(["1", "0"]);
  expect(await cells("calls the API made")).toEqual(["0", "1"]);
  expect(await cells("Messages API requests")).toEqual(["2", "1"]);
  expect((await cells("bytes between the page and them"))[1]).toBe("0 B");
  await expect(await timelineRow(page, /mcp_tool_use search_notes/)).toBeVisible();
  await snap(page, "lesson-connector-compared");

  // Step 3: a phase-3 breakpoint stops the page's loop before it routes; the connector's run
  // has nothing in the page to stop at.
  await lesson.getByRole("button", { name: "Next step →" }).click();
  await expect(page.getByRole("button", { name: /^Stop at phase 3/ })).toHaveAttribute("aria-pressed", "true");
  await lesson.getByRole("button", { name: /^Ask both ways:/ }).click();
  await expect(page.getByRole("region", { name: /Paused at phase 3/ })).toBeVisible();
  await expect(panel).toBeHidden();
  await page.keyboard.press("F8");
  await expect(panel).toBeVisible({ timeout: 30_000 });
  await done();
  await expect(page.getByRole("region", { name: /Paused at phase/ })).toBeHidden();
  expect(await cells("calls the API made")).toEqual(["0", "1"]);
  console.expectNone();
});

test("the MCP Apps lesson, no key: the app-only tool stays out of phase 1, the app shows, calls its server and asks before it speaks", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page, "./?lesson=lessons/apps.json");
  const lesson = page.getByRole("region", { name: "An MCP App in the loop" });
  await expect(lesson).toContainText("Step 1 of 4");
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();

  // Step 1: the tools array has the tool with an app, not the one for the app only.
  await lesson.getByRole("button", { name: "Ask: Chart the words per note." }).click();
  const sent = page.getByRole("region", { name: /Paused at phase 1/ }).getByLabel("As it will be sent");
  await expect(sent).toHaveValue(/"name": "demo_chart_words"/);
  expect(await sent.inputValue()).not.toContain("demo_read_note");
  await page.keyboard.press("F8");
  await expect(page.getByRole("region", { name: /Paused at phase 1/ }).getByRole("heading")).toContainText("round 2");
  await page.keyboard.press("F8");
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });

  // The app, and its own call to the tool Claude never saw.
  const app = page.frameLocator('iframe[title^="App: chart_words · demo"]').frameLocator("iframe");
  await app.getByRole("button", { name: "layers" }).click();
  await expect(app.locator("#note")).toHaveText(/^layers: HTTP status is the truck/);
  await expect(await timelineRow(page, /^Loopscope to MCP: demo: tools\/call #\d+, "?read_note/)).toBeVisible();

  // Step 4: its message goes only once the user says so, and says it came from the app.
  for (const n of [2, 3, 4]) {
    await lesson.getByRole("button", { name: "Next step →" }).click();
    await expect(lesson).toContainText(`Step ${n} of 4`);
  }
  await app.getByRole("button", { name: "Ask Claude about this note" }).click();
  const figure = page.getByRole("figure", { name: /^App: chart_words · demo/ });
  await figure.getByRole("group", { name: "The app asks" }).getByRole("button", { name: "Send it" }).click();
  await expect(chat(page).getByText(/^The next message comes from the MCP App "chart_words · demo #\d+" \(ui\/message\)/)).toBeVisible();
  await expect(chat(page).getByText(/^Explain the note "layers" in one sentence/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  await snap(page, "lesson-apps");
  console.expectNone();
});
