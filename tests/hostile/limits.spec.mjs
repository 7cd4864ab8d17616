// A server decides how much it sends; the page decides how much it reads. Each case ends in a
// message that names the limit, its layer and the server, leaves the rest of the page working
// (a click answers within a second while it happens), and grows the page's memory by less than
// 64 MB however much the server sends.
import { test, expect } from "@playwright/test";
import { URLS } from "../e2e/fixtures.mjs";
import { addServer, appMounted, openApp, snap, timelineRow } from "../e2e/support.mjs";
import { clickLatency, reset, seen, setLimit, watchAttack } from "./support.mjs";

const MB = 1024 * 1024;

async function addFailing(page, path, label) {
  await page.getByLabel("MCP server URL").fill(URLS.hostile(path));
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill(label);
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Label and headers").click();
  return page.getByRole("article", { name: label });
}

for (const [path, label, limit, layer] of [
  ["/huge-list/mcp", "huge", "response body size (16 MiB)", "HTTP layer"],
  ["/huge-line/mcp", "longline", "SSE line size (16 MiB)", "HTTP layer"],
  ["/deep/mcp", "deep", "JSON nesting depth (64 levels)", "decoding layer"],
  // Each page of 6 MB is under the body limit; the listing as a whole is not.
  ["/paged/mcp", "paged", "size of one listing, all its pages together (16 MiB)", "protocol layer"],
]) {
  test(`a server that sends too much (${label}): refused as it arrives, named, the page stays responsive`, async ({ page }) => {
    const attack = await watchAttack(page);
    await openApp(page);
    // A server that works, to see that it keeps working.
    const good = await addServer(page, URLS.everything, "everything");
    const before = await attack.memory();
    const card = await addFailing(page, path, label);
    // While the body streams in, the page answers a click within a second.
    const latencies = [];
    for (let i = 0; i < 3; i++) latencies.push(await clickLatency(page));
    expect(Math.max(...latencies), `click latencies ${latencies}`).toBeLessThan(1000);
    const tools = card.locator(".failure, .form-error, [role=alert]").filter({ hasText: "limit reached" }).first();
    await expect(tools).toContainText(`limit reached: ${limit}`, { timeout: 60_000 });
    await expect(card.getByText(/Settings → Limits/).first()).toBeVisible();
    await expect(tools).toContainText(layer);
    await expect(card.getByText("tools/list failed:")).toBeVisible();
    await expect(card.getByText("No tools: tools/list failed (above).")).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await snap(page, `hostile-limit-${label}`);
    await timelineRow(page, /answer refused|refused at a limit|limit/);
    const grown = (await attack.memory()) - before;
    console.log(`${label}: wasm memory ${(before / MB).toFixed(1)} → ${((before + grown) / MB).toFixed(1)} MB; click latencies ${latencies.join(", ")} ms`);
    expect(grown, `wasm memory grew ${(grown / MB).toFixed(1)} MB`).toBeLessThan(64 * MB);
    if (label === "paged") expect((await seen()).pages, "no page asked for past the budget").toBe(3);
    // The other server and the rest of the page work on.
    await expect(good.getByText("connected", { exact: true })).toBeVisible();
    await attack.expectNoScript();
  });
}

test("a stream that says retry: 0 and closes is reopened no faster than the floor, and given up after the limit", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  const started = Date.now();
  const card = await addServer(page, URLS.hostile("/retry0/mcp"), "retry0");
  // 20 reopenings a minute by default, at least 500 ms apart: then the page stops listening.
  await expect(card.getByText(/stream reopenings per minute \(20 times\); the page stopped listening/)).toBeVisible({ timeout: 40_000 });
  const elapsed = Date.now() - started;
  const gets = (await seen()).gets.retry0;
  expect(gets).toBeLessThanOrEqual(21);
  expect(elapsed, `${gets} reopenings in ${elapsed} ms`).toBeGreaterThan(9_000);
  // And it stays stopped.
  await page.waitForTimeout(2_000);
  expect((await seen()).gets.retry0).toBe(gets);
  await card.scrollIntoViewIfNeeded();
  await snap(page, "hostile-retry-zero");
  await attack.expectNoScript();
});

test("an authorization step that never answers ends at its time limit, blamed on that step, and the card lets go", async ({ page }) => {
  const attack = await watchAttack(page);
  await openApp(page);
  await setLimit(page, "One authorization step (s)", 5);
  const card = await addFailing(page, "/hang/mcp", "hang");
  await expect(card.getByText("Getting authorization", { exact: false })).toBeVisible({ timeout: 10_000 });
  const failure = card.locator(".failure").first();
  await expect(failure).toContainText(`resource metadata (${URLS.hostile("/hang/prm")}): no answer within 5 s`, { timeout: 20_000 });
  await expect(failure).toContainText("timeout layer");
  await expect(card.getByText("Getting authorization", { exact: false })).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Sign in again" })).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await snap(page, "hostile-auth-step-timeout");
  await attack.expectNoScript();
});

// Another page of this origin writes the saved settings with the limits switched off. They are
// read into the bounds the settings screen enforces, said once in the chat, and the defences
// hold: retry: 0 is reopened no faster than the 100 ms floor, and 20 a minute at most.
test("saved limits written by another page are brought within bounds, said once, and the defences hold", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  await page.evaluate(() => {
    const saved = JSON.parse(localStorage.getItem("loopscope.settings") ?? "{}");
    saved.limits = { ...(saved.limits ?? {}), body_bytes: 4294967295, reconnect_floor_ms: 0, reconnects_per_minute: 1000000 };
    localStorage.setItem("loopscope.settings", JSON.stringify(saved));
  });
  await page.reload();
  const chat = page.getByRole("log", { name: "Conversation" });
  const notice = chat.getByText(/Saved settings held values the settings screen never allows/);
  await expect(notice).toBeVisible();
  await expect(notice).toContainText("Response body (MiB): 4095 saved, outside 1 to 256, so 256 is used");
  await expect(notice).toContainText("Shortest wait before reopening a stream (ms): 0 saved, outside 100 to 60000, so 100 is used");
  await expect(notice).toContainText("Stream reopenings per minute: 1000000 saved, outside 1 to 600, so 600 is used");
  await snap(page, "hostile-saved-limits-bounded");
  await page.getByText("Limits", { exact: true }).click();
  await expect(page.getByLabel("Response body (MiB)")).toHaveValue("256");
  await expect(page.getByLabel("Shortest wait before reopening a stream (ms)")).toHaveValue("100");
  await page.getByText("Limits", { exact: true }).click();
  // What is used is what Settings shows: 600 reopenings a minute, at least 100 ms apart.
  const started = Date.now();
  await addServer(page, URLS.hostile("/retry0/mcp"), "retry0");
  await page.waitForTimeout(3_000);
  const gets = (await seen()).gets.retry0;
  const elapsed = Date.now() - started;
  expect(gets, `${gets} reopenings in ${elapsed} ms`).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
  // Said once: the bounded values were saved, and a reload says nothing more.
  await page.reload();
  await appMounted(page);
  await expect(page.getByRole("article", { name: "retry0" })).toBeVisible();
  await expect(page.getByRole("log", { name: "Conversation" }).getByText(/Saved settings held values/)).toHaveCount(0);
  await attack.expectNoScript();
});
