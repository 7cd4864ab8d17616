// What needs a person: a server's elicitation form, a server's sampling request reviewed before
// it reaches Claude and again before the answer goes back, approving tool calls. Plus retries
// and stream errors as the chat shows them, and what a server's tools cost in tokens.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, reply, requests, script, snap, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

async function callByHand(card, tool) {
  await card.locator("summary", { hasText: tool }).first().click();
  const form = card.getByRole("form", { name: `Call ${tool}` });
  return form;
}

test("a server's elicitation is answered in a form built from its schema (C-37)", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.everything, "everything");
  const form = await callByHand(card, "trigger-elicitation-request");
  await form.getByRole("button", { name: "Call tool" }).click();
  const dialog = page.getByRole("dialog", { name: 'The MCP server "everything" asks you' });
  await expect(dialog).toBeVisible();
  // Defaults are filled in; titled choices show their titles.
  await expect(dialog.getByLabel("Untitled Single Select Enum")).toHaveValue("Monica");
  await expect(dialog.getByRole("option", { name: "Superman" })).toBeAttached();
  await expect(dialog.getByLabel("Tuna")).toBeChecked();
  // The one required field is empty: Accept does not go through.
  await dialog.getByRole("button", { name: "Accept" }).click();
  await expect(dialog).toBeVisible();
  expect(await dialog.getByLabel("String *").evaluate((el) => el.validity.valueMissing)).toBe(true);
  await dialog.getByLabel("String *").fill("Ada Lovelace");
  await snap(page, "elicitation-dialog");
  await dialog.getByRole("button", { name: "Accept" }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByLabel("Tool result")).toContainText("Ada Lovelace");
  console.expectNone();
});

test("sampling goes to Claude only after review, and the answer can be edited (C-38)", async ({ page }) => {
  await openApp(page);
  const key = "sk-e2e-sampling";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.everything, "everything");
  await script(key, [reply({ text: "A haiku about loops." })]);
  const form = await callByHand(card, "trigger-sampling-request");
  await form.getByLabel("prompt *").fill("Write a haiku");
  await form.getByRole("button", { name: "Call tool" }).click();
  const dialog = page.getByRole("dialog", { name: 'The MCP server "everything" asks Claude for a message' });
  await expect(dialog.getByLabel(/Request \(max \d+ tokens\)/)).toHaveValue(/Write a haiku/);
  expect(await requests(key)).toEqual([]); // nothing sent before the user says so
  await snap(page, "sampling-review");
  await dialog.getByRole("button", { name: "Send to Claude" }).click();
  const answer = dialog.getByLabel("Answer to return to the server");
  await expect(answer).toHaveValue("A haiku about loops.");
  await answer.fill("A haiku about loops, reviewed.");
  await dialog.getByRole("button", { name: "Return to server" }).click();
  await expect(card.getByLabel("Tool result")).toContainText("A haiku about loops, reviewed.");
  expect((await requests(key))[0].messages[0].content[0].text).toContain("Write a haiku");
});

test("with approval on, a denied call reaches Claude as is_error (C-31)", async ({ page }) => {
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await page.getByText("Model and request").click();
  await page.getByLabel("Ask before each tool call").check();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What is 6 * 7?");
  await page.getByRole("button", { name: "Send" }).click();
  const dialog = page.getByRole("dialog", { name: "Run this tool call?" });
  await expect(dialog).toContainText("calculate");
  await snap(page, "approval-dialog");
  await dialog.getByRole("button", { name: "Deny" }).click();
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("calculate failed: The user denied this tool call.")).toBeVisible();
});

test("a dialog works by keyboard: focus stays in it, the page behind is inert, Escape denies", async ({ page }) => {
  await openApp(page, "./?demo");
  await page.getByText("Model and request").click();
  await page.getByLabel("Ask before each tool call").check();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What is 6 * 7?");
  await page.getByRole("button", { name: "Send" }).click();
  const dialog = page.getByRole("dialog", { name: "Run this tool call?" });
  await expect(dialog.getByRole("button", { name: "Allow" })).toBeFocused();
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press("Tab");
    const outside = await page.evaluate(() => !!document.activeElement?.closest(".workspace, .topbar, .skip-link"));
    expect(outside, `Tab ${i + 1} left the dialog`).toBe(false);
  }
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("calculate failed: The user denied this tool call.")).toBeVisible();
});

test("rate limits and stream errors are retried and said in the chat (A-10, A-15)", async ({ page }) => {
  const console = watchConsole(page, ["Failed to load resource"]);
  await openApp(page);
  const key = "sk-e2e-retry";
  await useFakeClaude(page, key);
  await script(key, [
    { error: { status: 429, type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" } },
    { stream_error: { text: "I was about to", type: "overloaded_error", message: "Overloaded" } },
    reply({ text: "Third attempt worked." }),
  ]);
  await ask(page, "Hello?");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(/HTTP 429 rate_limit_error.*retry 1/)).toBeVisible();
  await expect(chat.getByText(/stream error after HTTP 200: overloaded_error.*retry 2/)).toBeVisible();
  await expect(chat.getByText("Third attempt worked.")).toBeVisible();
  await expect(chat.getByText("I was about to")).toBeHidden();
  expect((await requests(key)).length).toBe(3);
  await snap(page, "retries");
  console.expectNone();

  // Out of retries: the error, its layer, the request id, and a Retry button that works.
  await script(key, Array(3).fill({ error: { status: 529, type: "overloaded_error", message: "Overloaded" } }));
  await ask(page, "Again?");
  await expect(chat.getByText(/The request failed \(HTTP layer\): HTTP 529 overloaded_error.*request id req_fake_/)).toBeVisible();
  await script(key, [reply({ text: "Back again." })]);
  await page.getByRole("button", { name: "Retry" }).click();
  await expect(chat.getByText("Back again.")).toBeVisible();
});

test("a server's tool definitions are priced with count_tokens (A-16)", async ({ page }) => {
  await openApp(page);
  await useFakeClaude(page, "sk-e2e-cost");
  const card = await addServer(page, URLS.python, "notes");
  await card.getByRole("button", { name: "Measure token cost" }).click();
  await expect(card.locator(".cost")).toHaveText(/Measure token cost\s+\d+ input tokens on every request \(count_tokens\)/);
});
