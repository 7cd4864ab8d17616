// Untrusted text stays text: script payloads in a server's name and instructions, a tool's
// description, a tool result and the model's own answer must not run. And the key stays put.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, appMounted, ask, frames, openApp, reply, script, snap, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

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

// Saved settings are read field by field (engine::settings::UserSettings::read): one field written
// differently (an older version, a hand edit, another page of this origin) is its default, and
// the user's other settings stay.
test("saved settings with a field written wrong keep every other field", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  await page.evaluate(() => localStorage.setItem("loopscope.settings", JSON.stringify({
    demo: true, model: "claude-from-before", system: "Answer in French.", max_tokens: "lots", limits: "big", thinking: [1],
  })));
  await page.reload();
  await appMounted(page);
  await expect(page.getByLabel("Demo model (no key)")).toBeChecked();
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem("loopscope.settings")));
  expect(saved.model).toBe("claude-from-before");
  expect(saved.system).toBe("Answer in French.");
  // The fields that did not read are their defaults now, and saved as such.
  expect(saved.max_tokens).toBe(1024);
  expect(typeof saved.limits).toBe("object");
  console.expectNone();
});
