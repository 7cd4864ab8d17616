// Untrusted text stays text: script payloads in a server's name and instructions, a tool's
// description, a tool result and the model's own answer must not run. And the key stays put.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, frames, openApp, reply, script, snap, toolUse, useFakeClaude } from "./support.mjs";

const PAYLOAD = `<img src=x onerror="window.__xss='model'"> <script>window.__xss='model-script'</script> <a href="javascript:window.__xss='model-link'">click</a>`;

test("script payloads from servers, tools and the model are shown as text", async ({ page }) => {
  await openApp(page);
  const key = "sk-e2e-xss";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.fault("xss"), "xss");
  await card.getByText("Instructions").click();
  await card.getByText("echo", { exact: true }).click();
  await script(key, [reply({ text: PAYLOAD }, toolUse("xss_echo", { text: "x" })), reply({ text: PAYLOAD })]);
  await ask(page, "Show me something dangerous.");
  await page.getByText("What Claude received").first().click();
  await expect(page.getByRole("log", { name: "Conversation" }).getByText(/onerror=/).first()).toBeVisible();
  await expect(card.getByText(/<script>window.__xss='script'<\/script>/).first()).toBeVisible();
  await expect(card.getByText(/<img src=x onerror=/).first()).toBeVisible();
  await snap(page, "xss-as-text");
  // Everything shown has been drawn (and any handler would have run) by the next frames.
  await frames(page, 3);
  expect(await page.evaluate(() => window.__xss)).toBeUndefined();
  expect(await page.locator("img[src=x]").count()).toBe(0);
  expect(await page.locator("a[href^='javascript:']").count()).toBe(0);
});

test("the API key stays in memory unless remembered, and Forget removes it", async ({ page }) => {
  await openApp(page);
  await page.getByLabel("API key", { exact: true }).fill("sk-ant-secret-e2e");
  await page.reload();
  await expect(page.getByLabel("API key", { exact: true })).toHaveValue("");
  await page.getByLabel("API key", { exact: true }).fill("sk-ant-secret-e2e");
  await page.getByLabel("Remember on this device").check();
  await expect(page.getByText(/Stored unencrypted/)).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("API key", { exact: true })).toHaveValue("sk-ant-secret-e2e");
  await page.getByRole("button", { name: "Show API key" }).click();
  await expect(page.getByLabel("API key", { exact: true })).toHaveAttribute("type", "text");
  await page.getByRole("button", { name: "Forget key" }).click();
  await expect(page.getByLabel("API key", { exact: true })).toHaveValue("");
  expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain("sk-ant-secret-e2e");
});
