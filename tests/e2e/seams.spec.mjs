// The bugs found in the seams between the engine and the page (issue 20), each as a person
// meets it: a turn that outlives its conversation, a stop at phase 3 that could not be edited,
// a sampling request that could not be cancelled, a download revoked before it started, two
// tabs overwriting each other, and the demo model reading any language.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, openApp, reply, script, snap, timelineRow, useFakeClaude } from "./support.mjs";

const chat = (page) => page.getByRole("log", { name: "Conversation" });

test("New conversation while a turn runs: the new conversation stays empty", async ({ page }) => {
  await openApp(page);
  const key = "sk-e2e-epoch";
  await useFakeClaude(page, key);
  // A slow answer: forty pieces, 150 ms apart.
  await script(key, [{ reply: { content: [{ text: "An answer that takes its time. ".repeat(20) }], event_delay_ms: 150 } }]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Take your time.");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(chat(page).getByText(/An answer that takes/)).toBeVisible();
  await page.getByRole("button", { name: "New conversation" }).click();
  // Long enough for the old turn to have ended, had it gone on writing.
  await page.waitForTimeout(2_500);
  await expect(chat(page).getByText("Ask something that needs a tool")).toBeVisible();
  await expect(chat(page).getByText(/An answer that takes|Take your time|stopped|ended/)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
});

test("a stop at phase 3 is editable: the call goes where the edit sends it, marked edited", async ({ page }) => {
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await page.getByRole("button", { name: /^Stop at phase 3/ }).click();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What's the weather in Tokyo?");
  await page.getByRole("button", { name: "Send" }).click();
  const paused = page.getByRole("region", { name: /Paused/ });
  await expect(paused).toContainText('Change "route" to send it elsewhere');
  await expect(paused).toContainText('{"to": "local", "function": "calculate"}');
  const editor = paused.getByLabel("As it will be sent (edit the JSON to change it)");
  const payload = JSON.parse(await editor.inputValue());
  payload.tool_use.input = { expression: "6 * 7" };
  payload.route = { to: "local", function: "calculate" };
  await editor.fill(JSON.stringify(payload, null, 2));
  await expect(paused).toContainText("Edited: valid.");
  await snap(page, "phase-3-edited");
  await paused.getByRole("button", { name: "Continue (F8)" }).click();
  await expect(chat(page).getByText(/get_weather said: 6 \* 7 = 42/)).toBeVisible({ timeout: 20_000 });
  await timelineRow(page, /paused at phase 3.*edited/);
});

test("a sampling request can be cancelled while Claude answers, and declined", async ({ page }) => {
  await openApp(page);
  const key = "sk-e2e-sampling-cancel";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.everything, "everything");
  await script(key, [{ reply: { content: [{ text: "slow ".repeat(60) }], event_delay_ms: 200 } }]);
  await card.locator("summary", { hasText: "trigger-sampling-request" }).first().click();
  const form = card.getByRole("form", { name: "Call trigger-sampling-request" });
  await form.getByLabel("prompt *").fill("Write slowly");
  await form.getByRole("button", { name: "Call tool" }).click();
  const dialog = page.getByRole("dialog", { name: 'The MCP server "everything" asks Claude for a message' });
  await dialog.getByRole("button", { name: "Send to Claude" }).click();
  await expect(dialog.getByRole("button", { name: "Asking Claude…" })).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog.getByText("Cancelled: nothing was sent back to the server yet.")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Send to Claude" })).toBeEnabled();
  await dialog.getByRole("button", { name: "Decline" }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByLabel("Tool result")).toContainText(/declined/i);
});

test("an exported file is not revoked before the browser takes it", async ({ page }) => {
  await page.addInitScript(() => {
    window.__revoked = [];
    const revoke = URL.revokeObjectURL.bind(URL);
    URL.revokeObjectURL = (url) => {
      window.__revoked.push(performance.now());
      revoke(url);
    };
  });
  await openApp(page);
  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  const downloading = page.waitForEvent("download");
  const clicked = await page.evaluate(() => performance.now());
  await workshop.getByRole("button", { name: "Export this session" }).click();
  expect(await (await downloading).failure()).toBeNull();
  await page.waitForTimeout(1_000);
  const revoked = await page.evaluate(() => window.__revoked);
  expect(revoked.filter((t) => t - clicked < 1_000)).toEqual([]);
});

test("two tabs: neither silently undoes what the other saved", async ({ page, context }) => {
  await openApp(page);
  const other = await context.newPage();
  await openApp(other);
  await addServer(page, URLS.everything, "first");
  // The other tab hears of it: the server waits there for Connect.
  const there = other.getByRole("article", { name: "first" });
  await expect(there).toBeVisible();
  await expect(there.getByRole("button", { name: "Connect" })).toBeVisible();
  // A server added in the other tab, and one removed here: both survive the other's saves.
  await addServer(other, URLS.python, "second");
  await expect(page.getByRole("article", { name: "second" })).toBeVisible();
  await snap(other, "two-tabs");
  // Settings too: Max tokens changed in one tab is the other's at once.
  await page.getByText("Model and request").click();
  await page.getByLabel("Max tokens").fill("2048");
  await page.getByLabel("Max tokens").press("Tab");
  await other.getByText("Model and request").click();
  await expect(other.getByLabel("Max tokens")).toHaveValue("2048");
  await page.reload();
  await expect(page.getByRole("article", { name: "first" })).toBeVisible();
  await expect(page.getByRole("article", { name: "second" })).toBeVisible();
  // Removed in one tab, gone in the other, and it stays gone after either saves.
  await page.getByRole("article", { name: "first" }).getByRole("button", { name: "Remove" }).click();
  await expect(other.getByRole("article", { name: "first" })).toHaveCount(0);
  await other.reload();
  await expect(other.getByRole("article", { name: "second" })).toBeVisible();
  await expect(other.getByRole("article", { name: "first" })).toHaveCount(0);
});

test("the demo model reads any language", async ({ page }) => {
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  for (const question of ["Any cafés nearby?", "東京の天気は？"]) {
    await page.getByRole("textbox", { name: "Message", exact: true }).fill(question);
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 20_000 });
  }
  await expect(chat(page).getByText("東京の天気は？")).toBeVisible();
  expect(errors).toEqual([]);
});
