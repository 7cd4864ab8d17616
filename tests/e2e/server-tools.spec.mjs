// Tools the API runs itself, in the real build against the fake Messages API: the setting and
// the tools entry it sends, the call and its result on the API's own lane, pause_turn continued.
import { test, expect } from "@playwright/test";
import { ask, openApp, openRow, reply, requests, script, snap, timelineRow, useFakeClaude, watchConsole } from "./support.mjs";

test("web search: Claude calls it, the API runs it on its own lane, and a paused turn goes on", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-server-tools";
  await useFakeClaude(page, key);
  await page.getByText("Model and request").click();
  await page.getByLabel("web search web_search_20250305").check();
  await page.getByText("Model and request").click();

  const result = {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_e2e",
    content: [{ type: "web_search_result", url: "https://modelcontextprotocol.io", title: "MCP", encrypted_content: "Eo8B", page_age: null }],
  };
  await script(key, [
    { reply: {
      content: [
        { server_tool_use: { id: "srvtoolu_e2e", name: "web_search", input: { query: "MCP specification" } } },
        { server_tool_result: result },
        { text: "Found the site; reading on…" },
      ],
      stop_reason: "pause_turn",
    } },
    reply({ text: "MCP is specified at modelcontextprotocol.io." }),
  ]);
  await ask(page, "Where is MCP specified?");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("MCP is specified at modelcontextprotocol.io.")).toBeVisible();
  await expect(chat.getByText("web_search run by the Claude API")).toBeVisible();

  const [first, second] = await requests(key);
  expect(first.tools).toContainEqual({ type: "web_search_20250305", name: "web_search", max_uses: 5 });
  // pause_turn: the paused message goes back last, unchanged, with no new user message.
  expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  expect(second.messages[1].content[1]).toEqual(result);

  await expect(page.locator(".tl-lanes")).toContainText("Claude API's own tools");
  await expect(await timelineRow(page, /server_tool_use web_search.*MCP specification/)).toBeVisible();
  await expect(await timelineRow(page, /web_search_tool_result.*1 item/)).toBeVisible();
  await expect(await timelineRow(page, /Note: pause_turn: the API paused its own loop/)).toBeVisible();
  await snap(page, "server-tools-timeline");
  await openRow(page, /web_search_tool_result/);
  await expect(page.getByRole("dialog").first()).toContainText("encrypted_content");
  console.expectNone();
});

test("with no key: the demo model's web search runs on the API's lane, with results it says are made up", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await page.getByText("Model and request").click();
  await page.getByLabel("web search web_search_20250305").check();
  await page.getByText("Model and request").click();
  await ask(page, "Search the web for the MCP specification");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("web_search run by the Claude API")).toBeVisible();
  await expect(chat.getByText(/demo results, made up in the page/)).toBeVisible();
  await expect(await timelineRow(page, /server_tool_use web_search.*MCP specification/)).toBeVisible();
  await expect(await timelineRow(page, /web_search_tool_result.*1 item/)).toBeVisible();
  await snap(page, "server-tools-demo");
  console.expectNone();
});
