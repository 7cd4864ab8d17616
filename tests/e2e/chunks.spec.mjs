// The parts of the page loaded on first use (src/chunks/): each from an offline reload once
// the page has been visited, and a chunk that does not arrive said where the feature would be,
// with a Retry that works.
import { test, expect } from "@playwright/test";
import { appMounted, ask, openApp, openRow, snap, timelineRow, watchConsole } from "./support.mjs";

const chat = (page) => page.getByRole("log", { name: "Conversation" });

/** The build's chunk files (wasm.json, written by scripts/build-wasm.mjs). */
async function chunkFiles(page) {
  const wasm = await (await page.request.get("./wasm.json")).json();
  return [...new Set(Object.values(wasm.chunks).flat())];
}

test("every chunk is in the offline copy after one visit, and each feature works from an offline reload", async ({ page, context }) => {
  const console = watchConsole(page);
  await openApp(page);
  const files = await chunkFiles(page);
  expect(files.length).toBeGreaterThanOrEqual(5);
  // The service worker holds every chunk, not only the ones this visit used.
  const cached = () => page.evaluate(async (files) => {
    const urls = new Set();
    for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.add(new URL(r.url).pathname);
    return files.filter((f) => ![...urls].some((u) => u.endsWith(`/${f}`)));
  }, files);
  await expect.poll(cached, { message: "chunk files not yet in the service worker's cache" }).toEqual([]);

  await context.setOffline(true);
  await page.reload();
  await appMounted(page);
  await page.getByLabel("Demo model (no key)").check();

  // explore: the demo server's card and its tabs.
  await page.getByRole("button", { name: "Add the demo server" }).click();
  const card = page.getByRole("article", { name: "demo" });
  await expect(card.getByText("connected", { exact: true })).toBeVisible();
  await card.getByRole("tab", { name: "Resources" }).click();
  await expect(card.getByRole("tabpanel")).not.toContainText("did not arrive");
  await card.getByRole("tab", { name: "Tools" }).click();
  await expect(card.locator("summary").first()).toBeVisible();
  // workshop: the card's Faults tab, the Workshop panel, a stop at a breakpoint.
  await card.getByRole("tab", { name: "Faults" }).click();
  await expect(card.getByText(/Break this server on purpose/)).toBeVisible();
  await page.getByText("Workshop", { exact: true }).click();
  await expect(page.getByRole("heading", { name: "Breakpoints" })).toBeVisible();
  await page.getByRole("button", { name: /^Stop at phase 2/ }).click();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What is 17 * 23?");
  await page.getByRole("button", { name: "Send" }).click();
  const paused = page.getByRole("region", { name: /Paused at phase 2/ });
  await expect(paused).toBeVisible();
  await paused.getByRole("button", { name: "Continue (F8)" }).click();
  await expect(chat(page).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
  // detail: a timeline row's details.
  await openRow(page, /You to Loopscope: user message, What is 17 \* 23\?/);
  await expect(page.getByRole("dialog", { name: "user message" })).toBeVisible();
  await snap(page, "offline-chunks");
  await context.setOffline(false);
  console.expectNone();
});

test.describe("prefetched when the page is idle", () => {
  // Without the service worker, whose install would fetch every file anyway.
  test.use({ serviceWorkers: "block" });

  test("every chunk arrives with no click, after the page has started", async ({ page }) => {
    const fetched = new Set();
    page.on("requestfinished", (r) => fetched.add(new URL(r.url()).pathname.split("/").pop()));
    await openApp(page);
    const files = (await chunkFiles(page)).map((f) => f.split("/").pop());
    await expect.poll(() => files.filter((f) => !fetched.has(f)), { message: "chunks not prefetched" }).toEqual([]);
  });
});

test.describe("a chunk that does not arrive", () => {
  // Without the service worker, so the page's own requests can be held back.
  test.use({ serviceWorkers: "block" });

  test("is said where the feature would appear, with Retry; the rest of the page works", async ({ page }) => {
    const console = watchConsole(page, ["Failed to load resource", "TypeError: Failed to fetch", "net::ERR_FAILED"]);
    let blocked = 0;
    await page.route(/\/split_workshop\.wasm$/, (route) => {
      blocked += 1;
      return route.abort("failed");
    });
    await openApp(page);
    await page.getByText("Workshop", { exact: true }).click();
    const missing = page.getByRole("alert").filter({ hasText: "The workshop tools did not arrive" });
    await expect(missing).toBeVisible();
    await expect(missing).toContainText(/the site may have been updated since this page opened \(then reload the page\), or the connection dropped \(then Retry\)/);
    expect(blocked).toBeGreaterThan(0);
    await missing.scrollIntoViewIfNeeded();
    await snap(page, "chunk-missing");

    // Nothing else broke: a turn with the demo model runs, and its details open.
    await page.getByLabel("Demo model (no key)").check();
    await ask(page, "What is 17 * 23?");
    await expect(chat(page).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
    await expect(await timelineRow(page, /Phase 4: tool_result returns/)).toBeVisible();

    // The file is back: Retry loads it in place.
    await page.unroute(/\/split_workshop\.wasm$/);
    await missing.getByRole("button", { name: "Retry" }).click();
    await expect(page.getByRole("heading", { name: "Breakpoints" })).toBeVisible();
    await expect(missing).toHaveCount(0);
    console.expectNone();
  });

  // Reading and running a lesson is the workshop chunk's code: a link's lesson waits for it.
  test("a link's lesson waits for the workshop's code: said where the lesson shows, and one Retry opens it", async ({ page }) => {
    const console = watchConsole(page, ["Failed to load resource", "TypeError: Failed to fetch", "net::ERR_FAILED"]);
    await page.route(/\/split_workshop\.wasm$/, (route) => route.abort("failed"));
    await openApp(page, "./?lesson=lessons/four-phases.json");
    const missing = page.getByRole("alert").filter({ hasText: "The lesson did not arrive" });
    await expect(missing).toBeVisible();
    // Nothing of the lesson ran without its code: no model picked, no server added.
    await expect(page.getByRole("article", { name: "demo" })).toHaveCount(0);
    await expect(page.getByLabel("Demo model (no key)")).not.toBeChecked();
    await snap(page, "lesson-chunk-missing");
    await page.unroute(/\/split_workshop\.wasm$/);
    await missing.getByRole("button", { name: "Retry" }).click();
    const lesson = page.getByRole("region", { name: "The four phases of a tool call" });
    await expect(lesson).toContainText("Step 1 of 5");
    await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
    await expect(missing).toHaveCount(0);
    console.expectNone();
  });

  test("the demo's code: the turn ends with a network error that says what happened, and works once it arrives", async ({ page }) => {
    const console = watchConsole(page, ["Failed to load resource", "TypeError: Failed to fetch", "net::ERR_FAILED"]);
    await page.route(/\/split_demo\.wasm$/, (route) => route.abort("failed"));
    await openApp(page);
    await page.getByLabel("Demo model (no key)").check();
    await ask(page, "What is 17 * 23?");
    const failed = chat(page).getByRole("alert").filter({ hasText: "network layer" });
    await expect(failed).toContainText("the demo's code did not arrive");
    // The conversation is kept, and once the file is back the same turn runs.
    await expect(chat(page).getByText("What is 17 * 23?")).toBeVisible();
    await page.unroute(/\/split_demo\.wasm$/);
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(chat(page).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
    console.expectNone();
  });
});

test.describe("the agent chunk (the loop and the servers' connections)", () => {
  test.use({ serviceWorkers: "block" });

  test("a Send and a Connect made before it arrives say they wait for it, and go on when it does", async ({ page }) => {
    const console = watchConsole(page);
    let release;
    const held = new Promise((r) => (release = r));
    await page.route(/\/split_agent\.wasm$/, async (route) => {
      await held;
      await route.continue();
    });
    await openApp(page);
    await page.getByLabel("Demo model (no key)").check();
    await page.getByRole("textbox", { name: "Message", exact: true }).fill("What is 17 * 23?");
    await page.getByRole("button", { name: "Send" }).click();
    const waiting = page.getByRole("status").filter({ hasText: "Loading the loop's code: the turn starts when it arrives" });
    await expect(waiting).toBeVisible();
    await page.getByRole("button", { name: "Add the demo server" }).click();
    const card = page.getByRole("article", { name: "demo" });
    await expect(card.getByText("connecting…", { exact: true })).toBeVisible();
    await snap(page, "agent-chunk-waiting");
    release();
    await expect(chat(page).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
    await expect(waiting).toHaveCount(0);
    await expect(card.getByText("connected", { exact: true })).toBeVisible();
    console.expectNone();
  });

  // Its own file, or the one that holds the small shared chunks (scripts/build-wasm.mjs, 4c): a
  // failed fetch of either is not kept, so Retry fetches it again.
  for (const [which, file, shot] of [
    ["its own file", /\/split_agent\.wasm$/, "agent-chunk-missing"],
    ["the small shared chunks' file", /\/small_chunks\.wasm$/, "agent-small-chunks-missing"],
  ]) test(`the first screen takes input before it arrives (${which}); when it cannot arrive, Send and Connect say so, and Retry and Reconnect work once it can`, async ({ page }) => {
    const console = watchConsole(page, ["Failed to load resource", "TypeError: Failed to fetch", "net::ERR_FAILED"]);
    let blocked = 0;
    await page.route(file, (route) => {
      blocked += 1;
      return route.abort("failed");
    });
    await openApp(page);
    // The first screen works without the loop: the composer and the server form take input.
    await page.getByLabel("Demo model (no key)").check();
    await ask(page, "What is 17 * 23?");
    const missing = chat(page).getByText("The loop's code did not arrive", { exact: false });
    await expect(missing).toBeVisible();
    await expect(missing).toContainText("or the connection dropped (then Retry)");
    expect(blocked).toBeGreaterThan(0);
    // Connecting a server needs the same code: the card says so at the network layer.
    await page.getByRole("button", { name: "Add the demo server" }).click();
    const card = page.getByRole("article", { name: "demo" });
    await expect(card).toContainText("the code that connects servers did not arrive");
    await expect(card).toContainText("Then press Reconnect.");
    await snap(page, shot);

    // The file is back: the same turn runs with Retry, the server connects with Reconnect.
    await page.unroute(file);
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(chat(page).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
    await card.getByRole("button", { name: "Reconnect" }).click();
    await expect(card.getByText("connected", { exact: true })).toBeVisible();
    console.expectNone();
  });

  // The timeline's rows and Claude's answers come with the loop's code too: a recording opened
  // while that code cannot arrive shows its questions, and the answers and the timeline say they
  // did not arrive; one Retry draws them all.
  test("a recording opened without it: its answers and the timeline's rows say they did not arrive, and one Retry draws them", async ({ page, browser }) => {
    await openApp(page);
    await page.getByLabel("Demo model (no key)").check();
    await ask(page, "What is 17 * 23?");
    await expect(chat(page).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
    const workshop = page.getByRole("region", { name: "Workshop" });
    await workshop.getByText("Workshop").click();
    const downloading = page.waitForEvent("download");
    await workshop.getByRole("button", { name: "Export this session" }).click();
    const file = await (await downloading).path();

    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, serviceWorkers: "block" });
    const viewer = await context.newPage();
    const console = watchConsole(viewer, ["Failed to load resource", "TypeError: Failed to fetch", "net::ERR_FAILED"]);
    await viewer.route(/\/split_agent\.wasm$/, (route) => route.abort("failed"));
    await openApp(viewer);
    const panel = viewer.getByRole("region", { name: "Workshop" });
    await panel.getByText("Workshop").click();
    await panel.getByLabel("Open a recorded session…").setInputFiles(file);
    // The question shows; the answer is drawn by that code too, and says it did not arrive.
    await expect(chat(viewer).getByText("What is 17 * 23?")).toBeVisible();
    await expect(chat(viewer).getByRole("alert").filter({ hasText: "The answer's view did not arrive" }).first()).toBeVisible();
    const timeline = viewer.locator("#timeline");
    const missing = timeline.getByRole("alert").filter({ hasText: "The timeline's rows did not arrive" });
    await expect(missing).toBeVisible();
    await expect(timeline).toContainText(/\d+ events · 0 rows/);
    await snap(viewer, "timeline-rows-missing");

    await viewer.unroute(/\/split_agent\.wasm$/);
    await missing.getByRole("button", { name: "Retry" }).click();
    await expect(await timelineRow(viewer, /^Loopscope to Local functions: calculate\(\)/)).toBeVisible();
    await expect(missing).toHaveCount(0);
    // One Retry that worked brings back every place that said it failed: the answers too.
    await expect(chat(viewer).getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
    await expect(chat(viewer).getByText("did not arrive", { exact: false })).toHaveCount(0);
    console.expectNone();
    await context.close();
  });
});
