// Thinking in the real build against the fake Messages API: the settings and what they send,
// thinking in the chat and on Claude's lane, the rule named before sending, and the teaching
// switch that alters a thinking block so the API's 400 can be seen.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, openRow, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

async function thinkingSettings(page, { model, mode, effort, display }) {
  await page.getByText("Model and request").click();
  // By id: "Model" also names the Claude-or-demo switch.
  const field = page.locator("#model");
  await field.fill(model);
  await field.press("Tab");
  await page.locator("#thinking-mode").selectOption(mode);
  if (effort) await page.getByLabel("Effort").selectOption(effort);
  if (display) await page.getByLabel("Thinking text").selectOption(display);
}

const turn = (thinking) => [
  reply({ thinking }, toolUse("calculate", { expression: "17 * 23" })),
  { summarize: {} },
];

test("adaptive thinking: sent as set, streamed into the chat and onto Claude's lane, and sent back unchanged", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-thinking";
  await useFakeClaude(page, key);
  await thinkingSettings(page, { model: "claude-opus-4-7", mode: "adaptive", effort: "low", display: "summarized" });
  await expect(page.locator("#model-hint")).toHaveText(/^claude-opus-4-7: thinks when asked · thinking text omitted by default\.$/);
  await page.locator("#thinking-mode").scrollIntoViewIfNeeded();
  await snap(page, "thinking-settings");

  await script(key, turn("The product needs exact arithmetic: the calculator."));
  await ask(page, "What is 17 * 23?");
  const chat = page.getByRole("log", { name: "Conversation" });
  const fold = chat.locator("details.thinking").first();
  await expect(fold.locator("summary")).toHaveText("Thinking");
  await fold.locator("summary").click();
  await expect(fold).toContainText("The product needs exact arithmetic: the calculator.");
  await expect(chat.getByText(/Tool results — .*391/)).toBeVisible();

  const [first, second] = await requests(key);
  expect(first.thinking).toEqual({ type: "adaptive", display: "summarized" });
  expect(first.output_config).toEqual({ effort: "low" });
  const back = second.messages[1].content[0];
  expect(back.type).toBe("thinking");
  expect(back.thinking).toBe("The product needs exact arithmetic: the calculator.");
  expect(back.signature).toMatch(/^EqFakeS/);

  await openRow(page, /^Note: thinking · The product needs exact arithmetic/);
  const detail = page.getByRole("dialog").first();
  await expect(detail).toContainText(/signature: \d+ characters/);
  await snap(page, "thinking-timeline");
  await page.keyboard.press("Escape");
  console.expectNone();
});

test("omitted thinking says so, and a budget the model refuses is named before anything is sent", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-thinking-omitted";
  await useFakeClaude(page, key);
  // claude-opus-5-5 always thinks and omits the text unless asked.
  await thinkingSettings(page, { model: "claude-opus-5-5", mode: "default" });
  await script(key, turn("Hidden reasoning."));
  await ask(page, "What is 17 * 23?");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.locator("details.thinking summary").first()).toHaveText(/text omitted by the API/);
  expect((await requests(key))[1].messages[1].content[0].thinking).toBe("");

  // A thinking budget on a model that only thinks adaptively: the rule, before sending.
  await page.locator("#thinking-mode").selectOption("budget");
  const verdict = page.locator("#thinking-verdict");
  await expect(verdict).toHaveText(
    'The API would refuse this: claude-opus-5-5 does not accept thinking type "enabled": use adaptive thinking with an effort.',
  );
  await verdict.scrollIntoViewIfNeeded();
  await snap(page, "thinking-verdict");
  const sent = (await requests(key)).length;
  await ask(page, "Again?");
  await expect(chat.getByText(/the API would refuse this request: claude-opus-5-5 does not accept/)).toBeVisible();
  expect((await requests(key)).length).toBe(sent);
  console.expectNone();
});

test("the teaching switch alters a thinking block: the API's 400 is shown, and Retry runs the turn unchanged", async ({ page }) => {
  const console = watchConsole(page, ["status of 400"]);
  await openApp(page);
  const key = "sk-e2e-thinking-alter";
  await useFakeClaude(page, key);
  await thinkingSettings(page, { model: "claude-sonnet-4-6", mode: "adaptive", display: "summarized" });
  await page.getByLabel("Teaching: break the next turn on purpose").selectOption("alter-thinking");
  // The refused request plays no step: the retried turn answers from the second one.
  const [call, summary] = turn("Use the calculator.");
  await script(key, [call, call, summary]);
  await ask(page, "What is 17 * 23?");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(/sends a thinking block changed/)).toBeVisible();
  await expect(chat.getByText(/blocks in the latest assistant message cannot be modified/)).toBeVisible();
  await expect(await timelineRow(page, /POST \/v1\/messages.*HTTP 400/)).toBeVisible();
  await expect(await timelineRow(page, /Note: Teaching switch: this request changes a thinking block/)).toBeVisible();
  await snap(page, "thinking-teaching-400");

  await page.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  await expect(chat.getByText(/Tool results — .*391/)).toBeVisible();
  console.expectNone();
});

test("a server added after Claude thought: the rule named before sending, and the question offered in a new conversation", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-thinking-rebound";
  await useFakeClaude(page, key);
  await thinkingSettings(page, { model: "claude-opus-5-5", mode: "adaptive", display: "summarized" });
  await page.getByText("Model and request").click();
  await script(key, [reply({ thinking: "A greeting." }, { text: "Hello." })]);
  await ask(page, "Hi");
  await addServer(page, URLS.everything, "everything");
  await ask(page, "Echo hi");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByRole("alert")).toContainText(/binds to the tools and system prompt it was made with, and they changed since/);
  expect(await requests(key)).toHaveLength(1);
  const anew = page.getByRole("button", { name: "Ask in a new conversation" });
  await expect(anew).toBeVisible();
  await snap(page, "thinking-rebound-offer");

  await script(key, [reply({ thinking: "Echo it." }, toolUse("everything_echo", { message: "hi" })), { summarize: {} }]);
  await anew.click();
  await expect(chat.getByText(/Tool results — .*Echo: hi/)).toBeVisible();
  const sent = await requests(key);
  expect(sent[1].messages.map((m) => m.role)).toEqual(["user"]);
  expect(sent[1].messages[0].content[0].text).toBe("Echo hi");
  await expect(anew).toBeHidden();
  console.expectNone();
});
