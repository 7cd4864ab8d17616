// A workshop without keys: the demo model drives the real loop in the page; without it, the
// page says what is missing instead of failing.
import { test, expect } from "@playwright/test";
import { ask, lowContrast, openApp, snap, timelineRow, watchConsole } from "./support.mjs";

test("without a key the page says what to do", async ({ page }) => {
  await openApp(page);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Hello?");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByRole("alert").getByText(/Add your Claude API key in Settings, or switch on the demo model/)).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Message", exact: true })).toHaveValue("Hello?");
});

// The local functions' card, opened, is the explore chunk's (its forms and the functions' code).
test("a local function called by hand from its card: its form, its result, and a mistake said", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = page.getByRole("article", { name: "Local functions" });
  await card.getByRole("button", { name: "Show local functions" }).click();
  await card.locator("summary", { hasText: "calculate" }).click();
  const form = card.getByRole("form", { name: "Call calculate" });
  await form.getByRole("textbox").first().fill("(2 + 3) * 4");
  await form.getByRole("button", { name: "Call function" }).click();
  await expect(card.getByLabel("Function result")).toHaveText("(2 + 3) * 4 = 20");
  await snap(page, "local-functions");
  await form.getByRole("textbox").first().fill("1 / 0");
  await form.getByRole("button", { name: "Call function" }).click();
  await expect(card.getByRole("alert")).toHaveText("division by zero");
  console.expectNone();
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

test("no key and no server: the demo server shows each layer and the model corrects itself", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await page.getByRole("button", { name: "Add the demo server" }).click();
  const card = page.getByRole("article", { name: "demo" });
  await expect(card.getByText("connected", { exact: true })).toBeVisible();
  await expect(card.locator(".server-info strong")).toHaveText("2025-11-25");
  await expect(page.getByRole("button", { name: "Add the demo server" })).toBeHidden();

  await page.getByRole("button", { name: "Read the file src/main.ts, and call the flaky service." }).click();
  await ask(page, await page.getByRole("textbox", { name: "Message", exact: true }).inputValue());
  const chat = page.getByRole("log", { name: "Conversation" });
  // Pattern 2 (HTTP 200 + JSON-RPC -32602) reaches Claude as is_error; the model retries.
  await expect(chat.getByText(/path must be absolute, so I'll try again with \/src\/main\.ts/)).toBeVisible();
  await expect(chat.getByText("demo_read_file said: console.log('hello world');")).toBeVisible();
  await expect(chat.getByText("The demo model finished its answer (end_turn).")).toBeVisible();
  // Pattern 3 (HTTP 504) too.
  await expect(chat.getByText(/demo_call_flaky_service failed: .*HTTP 504 from the server \(Gateway Timeout: the upstream service did not answer\)/)).toBeVisible();

  // The timeline draws the real JSON-RPC exchange with the server in the page, badge per layer.
  await expect(page.locator(".tl-lanes")).toContainText("MCP: demo");
  await expect(await timelineRow(page, /MCP: demo to Loopscope: error #\d+.*-32602 Invalid params/)).toBeVisible();
  await expect(await timelineRow(page, /tools\/call #\d+.*HTTP 504/)).toBeVisible();
  await snap(page, "demo-server-layers");
  // Badges, tool states and the chat read well in both themes.
  expect(await lowContrast(page), "light").toEqual([]);
  await page.getByRole("button", { name: "Switch to dark theme" }).click();
  expect(await lowContrast(page), "dark").toEqual([]);
  console.expectNone();
});

test("the teaching switch leaves out a tool_result: the API's 400 is shown, and Retry runs the turn with it (A-12)", async ({ page }) => {
  const console = watchConsole(page, ["status of 400"]);
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await page.getByText("Model and request").click();
  const teach = page.getByLabel("Teaching: break the next turn on purpose");
  await teach.selectOption("leave-out-results");
  await ask(page, "What is 17 * 23?");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(/this turn leaves the tool_result blocks out of the request/)).toBeVisible();
  await expect(chat.getByText(/`tool_use` ids were found without `tool_result` blocks immediately after/)).toBeVisible();
  await expect(teach).toHaveValue("none");
  // The refused attempt streamed nothing and leaves no empty answer behind.
  await expect(chat.locator(".msg.assistant")).toHaveCount(1);
  await expect(chat.locator(".msg.assistant")).toContainText("I'll use calculate.");
  await expect(await timelineRow(page, /POST \/v1\/messages.*HTTP 400/)).toBeVisible();
  await expect(await timelineRow(page, /Note: Teaching switch/)).toBeVisible();
  await snap(page, "teaching-400");

  await page.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  await expect(chat.getByText("calculate said: 17 * 23 = 391", { exact: false })).toBeVisible();
  console.expectNone();
});

test("a workshop link (?demo) opens with the demo model and the demo server", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page, "./?demo");
  await expect(page.getByLabel("Demo model (no key)")).toBeChecked();
  // The settings show the link to share, and it is this page's own address.
  const link = page.getByRole("link", { name: /\?demo$/ });
  await expect(link).toHaveText(new URL("./?demo", page.url()).href);
  const card = page.getByRole("article", { name: "demo" });
  await expect(card.getByText("connected", { exact: true })).toBeVisible();
  // Opened again (an attendee reloads): still one demo server.
  await page.reload();
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
  await expect(page.getByRole("article", { name: /^demo/ })).toHaveCount(1);
  await ask(page, "Search the notes for \"jsonrpc\" and explain what you find.");
  await expect(page.getByRole("log", { name: "Conversation" }).getByText(/demo_search_notes said: /)).toBeVisible();
  console.expectNone();
});
