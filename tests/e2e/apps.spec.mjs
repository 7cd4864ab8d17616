// MCP Apps, as far as Loopscope goes today: it shows no app and does not declare the extension,
// but a host must still keep a tool for its app only away from the model. Against the ext-apps
// repository's own debug server (@modelcontextprotocol/server-debug): `debug-tool` has an app,
// `debug-refresh` and `debug-log` are for the app only.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, openRow, reply, requests, script, snap, useFakeClaude, watchConsole, openApp } from "./support.mjs";

test("a tool for its app only is left out of Claude's tools, and phase 1 and the card say why", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-apps-debug";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.appsDebug, "debug");

  // The card: every tool is there (an app would call them), each saying who may call it.
  const refresh = card.getByRole("listitem").filter({ hasText: "debug-refresh" });
  await refresh.locator("summary").first().click();
  await expect(refresh.getByText(/^For its app only \(MCP Apps\): not offered to Claude\. A call from here stands in for its app\. Its app \(ui:\/\/debug-tool\/mcp-app\.html\) is not shown by Loopscope yet\.$/)).toBeVisible();
  const tool = card.getByRole("listitem").filter({ hasText: "debug-tool" });
  await tool.locator("summary").first().click();
  await expect(tool.getByText(/^Comes with an app \(MCP Apps\); Claude is offered the tool as any other\./)).toBeVisible();
  await refresh.scrollIntoViewIfNeeded();
  await snap(page, "apps-card");

  // What Claude was sent: the tool with an app, not the two for the app only.
  await script(key, [reply({ text: "Nothing to do." })]);
  await ask(page, "What can the debug server do?");
  await expect(page.getByRole("log", { name: "Conversation" }).getByText("Nothing to do.")).toBeVisible();
  const [first] = await requests(key);
  const names = first.tools.map((t) => t.name);
  expect(names).toContain("debug_debug-tool");
  expect(names.filter((n) => n.startsWith("debug_"))).toEqual(["debug_debug-tool"]);

  // Phase 1 says why each was left out.
  await openRow(page, /tools array: \d+ tools/);
  const detail = page.getByRole("dialog").first();
  for (const name of ["debug-log", "debug-refresh"]) {
    await expect(detail.getByText(new RegExp(`left out: ${name} on MCP server "debug": for its app only \\(MCP Apps: _meta\\.ui\\.visibility has no "model"\\)`))).toBeVisible();
  }
  await expect(detail.getByText(/note: comes with an app \(ui:\/\/debug-tool\/mcp-app\.html\) that Loopscope does not show yet/)).toBeVisible();
  await snap(page, "apps-phase-one");
  console.expectNone();
});
