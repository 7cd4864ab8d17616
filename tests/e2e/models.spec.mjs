// The Models API's list in the real build against the fake Messages API: the button asks
// GET /v1/models (every page), the model field suggests what it listed with each model's
// capabilities, and a request the listed model does not support is stopped before sending.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { ask, openApp, snap, timelineRow, useFakeClaude, watchConsole } from "./support.mjs";

test("models listed by the API: suggested with their capabilities, and what they lack refused before sending", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-models";
  await useFakeClaude(page, key);
  await page.getByText("Model and request").click();
  await page.getByRole("button", { name: "List models from the API" }).click();
  await expect(page.getByText("The Models API listed 6 models for this key.")).toBeVisible();
  const options = await page.locator("#models option").evaluateAll((os) => os.map((o) => o.value));
  expect(options).toContain("claude-next-6");
  expect(options).toHaveLength(6);

  const model = page.locator("#model");
  await model.fill("claude-next-6");
  await model.press("Tab");
  await expect(page.locator("#model-hint")).toHaveText(
    "claude-next-6: Claude Next 6 · 500,000 tokens in · 32,000 out · thinking: adaptive, disabled · effort: low, high · no strict tools (Models API).",
  );
  await page.locator("#field-strict").selectOption("all");
  await snap(page, "models-listed");
  await page.getByText("Model and request").click();

  await ask(page, "What is 2 + 2?");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat).toContainText("the Models API lists claude-next-6 without structured outputs, which strict tools need");
  // Only the two pages of models reached the API: no message was sent.
  const log = await (await fetch(`${URLS.claude}/_fake/requests?key=${key}`)).json();
  expect(log.map((r) => r.path)).toEqual(["/v1/models", "/v1/models"]);
  await expect(await timelineRow(page, /GET \/v1\/models/)).toBeVisible();
  console.expectNone();
});
