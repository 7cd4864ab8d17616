// Workshop mode (issue 15) in Chromium against the release build, with real MCP servers.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openApp, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

/** The text of the first tool_result Claude received in the last request with `key`. */
async function received(key) {
  const last = (await requests(key)).at(-1);
  const result = last.messages.at(-1).content[0];
  const text = typeof result.content === "string" ? result.content : result.content.map((b) => b.text).join(" ");
  return { isError: result.is_error === true, text };
}

// Each fault, injected on a real server (the Python SDK), and what Claude then receives.
const SERVER_FAULTS = [
  ["network", "HTTP 0", /could not be reached/, "network"],
  ["cors", "CORS", /could not be reached/, "cors"],
  ["http-503", "HTTP 503", /HTTP 503 from the server/, "http"],
  ["malformed-json", "JSON", /could not decode the response/, "decode"],
  ["stream-cut", "stream", /could not be reached|broke off/, "stream"],
  ["rpc-32602", "-32602", /JSON-RPC error -32602 \(Invalid params\)/, "jsonrpc"],
  ["tool-error", "isError", /The tool failed \(injected by Loopscope\)/, "tool"],
];

// Injected faults are made in the page: no request fails for real, so the console stays clean.
test("a server's Faults tab breaks its next call at the chosen layer, marked injected, and Claude gets the error", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-faults";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.python, "notes");
  await card.getByRole("tab", { name: "Faults" }).click();
  for (const [fault, , says, shot] of SERVER_FAULTS) {
    await card.getByLabel("Fault", { exact: true }).selectOption(fault);
    await card.getByRole("button", { name: "Inject" }).click();
    await expect(card.getByRole("list", { name: "Faults in force" })).toContainText("next call");
    await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
    await ask(page, `Search the notes (${fault}).`);
    const got = await received(key);
    expect(got.isError, fault).toBe(true);
    expect(got.text, fault).toMatch(says);
    // Used up: the list is empty again, and the timeline marks the call.
    await expect(card.getByRole("list", { name: "Faults in force" })).toBeEmpty();
    // The newest rows are in view (the timeline follows): the last injected call is this one.
    const marked = page.getByRole("listbox", { name: /Timeline events/ }).getByRole("option", { name: /tools\/call #\d+, search_notes.*injected/ });
    await marked.last().scrollIntoViewIfNeeded();
    await expect(marked.last()).toBeVisible();
    await snap(page, `fault-${shot}`);
  }
  // Every call, until removed: two turns fail, then the server answers again.
  await card.getByLabel("Fault", { exact: true }).selectOption("http-500");
  await card.getByLabel("When").selectOption("every");
  await card.getByRole("button", { name: "Inject" }).click();
  for (let i = 0; i < 2; i++) {
    await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
    await ask(page, "Search again.");
    expect((await received(key)).text).toMatch(/HTTP 500/);
  }
  await card.getByRole("button", { name: /^Stop injecting: HTTP 500/ }).click();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "And once more.");
  expect((await received(key)).isError).toBe(false);
  console.expectNone();
});

test("Claude's side: a tool that does not exist, and arguments that break the schema", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-claude-faults";
  await useFakeClaude(page, key);
  await addServer(page, URLS.python, "notes");
  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  await workshop.getByLabel("Fault", { exact: true }).selectOption("unknown-tool");
  await workshop.getByRole("button", { name: "Inject" }).click();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "Search the notes.");
  let got = await received(key);
  expect(got.isError).toBe(true);
  expect(got.text).toContain("notes_search_notes_that_does_not_exist");
  await (await timelineRow(page, /Note: injected: Claude asks for a tool that does not exist/)).scrollIntoViewIfNeeded();
  await snap(page, "fault-claude-unknown-tool");

  await workshop.getByLabel("Fault", { exact: true }).selectOption("bad-arguments");
  await workshop.getByRole("button", { name: "Inject" }).click();
  await script(key, [reply(toolUse("notes_search_notes", { query: "mcp" })), { summarize: {} }]);
  await ask(page, "Search the notes again.");
  got = await received(key);
  expect(got.isError).toBe(true);
  expect(got.text).toMatch(/query/);
  console.expectNone();
});
