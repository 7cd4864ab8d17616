// Exploring a server by hand, as a developer debugging it would: a slow tool's progress and a
// Cancel that reaches the server, resources and templates read, a prompt filled into the chat,
// and the server's log messages.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { execFileSync } from "node:child_process";
import { addServer, openApp, openRow, snap, timelineRow, watchConsole } from "./support.mjs";

test("a tool called by hand shows its progress and can be cancelled (C-21, C-22)", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.python, "notes");
  await card.locator("summary", { hasText: "slow_count" }).click();
  const form = card.getByRole("form", { name: "Call slow_count" });
  await form.getByLabel(/^steps/i).fill("30");
  await form.getByLabel(/^delay/i).fill("300");
  await form.getByRole("button", { name: "Call tool" }).click();

  await expect(form.getByRole("button", { name: "Calling…" })).toBeDisabled();
  const progress = card.getByRole("status").filter({ hasText: /^progress \d+ of 30: step \d+ of 30$/ });
  await expect(progress).toBeVisible();
  await expect(progress).toHaveText(/progress ([2-9]|1\d) of 30/);
  await snap(page, "manual-call-progress");

  await form.getByRole("button", { name: "Cancel" }).click();
  await expect(card.getByText(/cancelled/i).first()).toBeVisible();
  await expect(form.getByRole("button", { name: "Call tool" })).toBeEnabled();
  await expect(progress).toBeHidden();
  // The server was told (C-21), and the timeline shows it.
  await expect(await timelineRow(page, /notifications\/cancelled/)).toBeVisible();
  await snap(page, "manual-call-cancelled");

  // A call that runs to the end shows the server's answer.
  await form.getByLabel(/^steps/i).fill("2");
  await form.getByLabel(/^delay/i).fill("10");
  await form.getByRole("button", { name: "Call tool" }).click();
  await expect(card.getByRole("status").filter({ hasText: "counted to 2" })).toBeVisible();
  console.expectNone();
});

test("resources, templates and prompts are read and filled by hand", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.python, "notes");
  await card.getByRole("tab", { name: "Resources" }).click();
  await card.getByRole("button", { name: "Read notes://index" }).click();
  const contents = card.getByLabel("Resource contents");
  await expect(card.getByText(/^Contents of/)).toContainText("notes://index");
  await expect(contents).toContainText("jsonrpc");

  const template = card.getByRole("form", { name: "Fill template notes://{note_id}" });
  await template.getByLabel("note_id").fill("tool_result");
  await template.getByRole("button", { name: "Read" }).click();
  await expect(contents).toContainText("Every tool_use needs a tool_result in the next user message.");
  // A template the server rejects: its error, with the layer, not a blank.
  await template.getByLabel("note_id").fill("nope");
  await template.getByRole("button", { name: "Read" }).click();
  await expect(card.getByText(/JSON-RPC|no note/).first()).toBeVisible();
  await snap(page, "resources-read");

  await card.getByRole("tab", { name: "Prompts" }).click();
  await card.locator("summary", { hasText: "explain" }).click();
  const prompt = card.getByRole("form", { name: "Fill prompt explain" });
  await prompt.getByLabel("topic *").fill("sessions");
  await prompt.getByRole("button", { name: "Insert into chat" }).click();
  const composer = page.getByRole("textbox", { name: "Message", exact: true });
  await expect(composer).toHaveValue("Explain sessions to developers, using search_notes first.");
  await expect(composer).toBeFocused();
  console.expectNone();
});

test("a server's log messages show in its Log tab (C-23)", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.everything, "everything");
  await card.locator("summary", { hasText: "toggle-simulated-logging" }).click();
  await card.getByRole("form", { name: "Call toggle-simulated-logging" }).getByRole("button", { name: "Call tool" }).click();
  await card.getByRole("tab", { name: "Log" }).click();
  const log = card.getByRole("list", { name: "Server log" });
  await expect(log.locator("li").first()).toBeVisible({ timeout: 20_000 });
  await snap(page, "server-log");
  console.expectNone();
});

test("a subscribed resource on screen is re-read when the server says it changed (C-33)", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.everything, "everything");
  await card.getByRole("tab", { name: "Resources" }).click();
  const first = card.locator("li.resource").first();
  await first.getByRole("button", { name: /^Read / }).click();
  await expect(card.getByLabel("Resource contents")).toBeVisible();
  const subscribe = first.getByRole("button", { name: /^Subscribe to / });
  await subscribe.click();
  await expect(subscribe).toHaveAttribute("aria-pressed", "true");
  await expect(subscribe).toHaveText("Subscribed");

  // server-everything sends updates for subscribed resources once this tool is on.
  await card.getByRole("tab", { name: "Tools" }).click();
  await card.locator("summary", { hasText: "toggle-subscriber-updates" }).click();
  await card.getByRole("form", { name: "Call toggle-subscriber-updates" }).getByRole("button", { name: "Call tool" }).click();
  await card.getByRole("tab", { name: "Resources" }).click();
  await expect(card.getByRole("status").filter({ hasText: /Re-read after \d+ update notification/ })).toBeVisible({ timeout: 15_000 });
  await expect(await timelineRow(page, /notifications\/resources\/updated/)).toBeVisible();
  await snap(page, "resource-subscribed-updated");

  // Disconnecting ends the subscription first (C-33), then the session (C-11).
  await card.getByRole("button", { name: "Disconnect" }).click();
  await expect(await timelineRow(page, /resources\/unsubscribe/)).toBeVisible();
  await expect(await timelineRow(page, /DELETE/)).toBeVisible();
  console.expectNone();
});

test("a traced request replays from a terminal: the detail pane's curl command gets the same answer", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const card = await addServer(page, URLS.python, "notes");
  await card.locator("summary", { hasText: "search_notes" }).click();
  const form = card.getByRole("form", { name: "Call search_notes" });
  await form.getByLabel(/^query/i).fill("jsonrpc");
  await form.getByRole("button", { name: "Call tool" }).click();
  await expect(card.getByRole("status").filter({ hasText: "JSON-RPC 2.0 is a strict contract" })).toBeVisible();

  await openRow(page, /Loopscope to MCP: notes: tools\/call #\d+/);
  const detail = page.getByRole("dialog").first();
  await detail.getByText("Replay it with curl").first().click();
  const command = await detail.getByLabel("The request as a curl command").first().innerText();
  expect(command).toMatch(/^curl -N -X POST 'http:\/\/127\.0\.0\.1:\d+\/mcp'/);
  expect(command).toContain("-H 'mcp-session-id: ");
  await snap(page, "replay-curl");
  // The same session, version and body: the server answers the terminal as it answered the page.
  const out = execFileSync("sh", ["-c", `${command} --max-time 10 --silent`], { encoding: "utf8", timeout: 15_000 });
  expect(out).toContain("JSON-RPC 2.0 is a strict contract");
  console.expectNone();
});
