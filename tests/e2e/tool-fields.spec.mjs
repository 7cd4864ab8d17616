// The per-tool fields in the real build against the fake Messages API: strict and eager input
// streaming on the tools named, the arguments growing in the chat and their pieces on the
// timeline, and a strict tool whose schema is open stopped before sending with the rule named.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, openRow, reply, requests, script, snap, timelineRow, useFakeClaude, watchConsole } from "./support.mjs";

async function pick(page, field, names) {
  await page.locator(`#field-${field}`).selectOption("named");
  const input = page.getByLabel(`Tools sent with ${field.replaceAll("-", "_")}`);
  await input.fill(names);
  await input.press("Tab");
}

test("strict and eager tools: sent as named, arguments grow in the chat, each piece on the timeline", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-tool-fields";
  await useFakeClaude(page, key);
  await page.getByText("Model and request").click();
  await pick(page, "strict", "calculate, get_*");
  await pick(page, "eager-input-streaming", "calculate");
  await snap(page, "tool-fields-settings");
  await page.getByText("Model and request").click();

  const expression = "(17 * 23) + (42 / 6) - sqrt(16)";
  await script(key, [
    { reply: { content: [{ tool_use: { name: "calculate", input: { expression } } }], event_delay_ms: 120 } },
    reply({ text: "The answer is 394." }),
  ]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What is (17*23) + (42/6) - sqrt(16)?");
  await page.getByRole("button", { name: "Send" }).click();
  const chat = page.getByRole("log", { name: "Conversation" });
  // While Claude writes them, the arguments so far: a prefix of the JSON, not yet whole. (An
  // early prefix: on a loaded machine the last pieces can arrive within one frame, and the
  // page then draws the whole input at once.)
  const whole = JSON.stringify({ expression });
  // Each piece shows for about 120 ms: looked at every 20 ms (the default polling, 100 ms then
  // 250 ms then 500 ms apart, can miss every one of them).
  const growing = chat.getByLabel("Arguments so far");
  let early = "";
  const seen = async () => (early = await growing.innerText({ timeout: 100 }).catch(() => ""));
  await expect.poll(seen, { intervals: [20] }).toMatch(/^\{"expression":"\(17/);
  expect(early.length).toBeLessThan(whole.length);
  await expect(chat.getByText("The answer is 394.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden();

  const [first] = await requests(key);
  const sent = (name) => first.tools.find((t) => t.name === name);
  expect(sent("calculate")).toMatchObject({ strict: true, eager_input_streaming: true });
  expect(sent("get_weather")).toMatchObject({ strict: true });
  expect(sent("get_weather").eager_input_streaming).toBeUndefined();

  await expect(await timelineRow(page, /Note: strict: true on calculate, get_current_time, get_weather/)).toBeVisible();
  const row = await timelineRow(page, /tool_use calculate/);
  await expect(row).toContainText(/eager · \d+ pieces/);
  await snap(page, "tool-fields-timeline");
  await openRow(page, /tool_use calculate/);
  const detail = page.getByRole("dialog").first();
  await expect(detail).toContainText("input_json_delta pieces (eager_input_streaming");
  await expect(detail).toContainText("  1  {\"expre");
  console.expectNone();
});

test("a server's open schema made strict is stopped before sending, with the rule and what to do", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-strict-open";
  await useFakeClaude(page, key);
  // The official Python SDK's schemas (pydantic) are open: no additionalProperties.
  await addServer(page, URLS.python, "notes");
  await page.getByText("Model and request").click();
  await pick(page, "strict", "calculate notes_add");
  await page.getByText("Model and request").click();
  await ask(page, "Add 2 and 3");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat).toContainText("strict tool notes_add: the object at / must say \"additionalProperties\": false");
  await expect(chat).toContainText("Loopscope does not rewrite a server's schema");
  expect(await requests(key)).toHaveLength(0);
  await snap(page, "tool-fields-strict-refused");
  console.expectNone();
});
