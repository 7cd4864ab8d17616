// A workshop without keys: the demo model drives the real loop in the page; without it, the
// page says what is missing instead of failing.
import { test, expect } from "@playwright/test";
import { ask, openApp, snap, timelineRow, watchConsole } from "./support.mjs";

test("without a key the page says what to do", async ({ page }) => {
  await openApp(page);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Hello?");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByRole("alert").getByText(/Add your Claude API key in Settings, or switch on the demo model/)).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Message", exact: true })).toHaveValue("Hello?");
});

test("the demo model runs the loop with local functions", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await expect(page.getByText("Demo model", { exact: true }).first()).toBeVisible();
  await page.getByRole("button", { name: "What's the weather in Tokyo, and what is 17 * 23?" }).click();
  await ask(page, await page.getByRole("textbox", { name: "Message", exact: true }).inputValue());
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("get_weather said: ", { exact: false })).toBeVisible();
  await expect(chat.getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
  await timelineRow(page, "Phase 4: tool_result returns (round 1)");
  await snap(page, "demo-answered");
  await page.getByRole("button", { name: "Switch to dark theme" }).click();
  await snap(page, "demo-answered-dark");
  console.expectNone();
});
