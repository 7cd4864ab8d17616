// Each error layer, on its own badge and in its own words: HTTP 500, a JSON-RPC error object,
// a tool's isError, a network (CORS) failure mid-loop — and a server the browser may not read.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, lowContrast, openRow, openApp, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

test("a server without CORS headers is explained as such", async ({ page }) => {
  await openApp(page);
  const card = await addServer(page, URLS.pythonNoCors, "nocors", "failed");
  await expect(card.getByText("network layer")).toBeVisible();
  await expect(card.getByText(/will not let this page read the answer: CORS/)).toBeVisible();
  await card.getByText("What to check").click();
  await expect(card.getByText(/Access-Control-Expose-Headers: Mcp-Session-Id/)).toBeVisible();
  await snap(page, "server-cors-failure");
});

test("HTTP 500, JSON-RPC error, isError and a network failure in one turn", async ({ page }) => {
  // The browser logs the failed fetches itself; those are expected here.
  const console = watchConsole(page, ["Failed to load resource", "CORS policy", "net::ERR_FAILED"]);
  await openApp(page);
  const key = "sk-e2e-errors";
  await useFakeClaude(page, key);
  await addServer(page, URLS.fault("http-500"), "h500");
  await addServer(page, URLS.fault("rpc-error"), "rpc");
  await addServer(page, URLS.python, "notes");
  await addServer(page, URLS.fault("cors-drop"), "corsdrop");
  await script(key, [
    reply(
      toolUse("h500_echo", { text: "a" }),
      toolUse("rpc_echo", { text: "b" }),
      toolUse("notes_always_fails", { reason: "on purpose" }),
      toolUse("corsdrop_echo", { text: "d" }),
    ),
    { summarize: {} },
  ]);
  await ask(page, "Try every server.");

  // What Claude received: four is_error results, each saying what failed.
  const results = (await requests(key))[1].messages[2].content;
  expect(results.map((r) => r.is_error)).toEqual([true, true, true, true]);
  const text = (r) => (typeof r.content === "string" ? r.content : r.content.map((b) => b.text).join(" "));
  expect(text(results[0])).toContain("HTTP 500");
  expect(text(results[1])).toContain("JSON-RPC error -32602 (Invalid params)");
  expect(text(results[2])).toContain("always_fails failed on purpose");
  expect(text(results[3])).toContain("could not be reached");

  // The chat shows each failure with its layer.
  const chat = page.getByRole("log", { name: "Conversation" });
  for (const layer of ["HTTP layer", "JSON-RPC layer", "tool isError layer", "network layer"]) {
    await expect(chat.getByText(layer, { exact: true })).toBeVisible();
  }
  await snap(page, "errors-chat");

  // The timeline badges each layer.
  await timelineRow(page, /MCP: h500 to Loopscope: HTTP 500/);
  await timelineRow(page, /MCP: rpc to Loopscope: error #\d+.*-32602 Invalid params/);
  await timelineRow(page, /MCP: notes to Loopscope: result #\d+.*isError/);
  await timelineRow(page, /MCP: corsdrop to Loopscope: ✕ no HTTP answer/);
  await snap(page, "errors-timeline");
  // Every layer's badge and the failure boxes read well, light and dark.
  expect(await lowContrast(page), "light").toEqual([]);
  await page.getByRole("button", { name: "Switch to dark theme" }).click();
  expect(await lowContrast(page), "dark").toEqual([]);
  await page.getByRole("button", { name: "Switch to light theme" }).click();
  await openRow(page, /MCP: corsdrop to Loopscope: ✕ no HTTP answer/);
  const detail = page.getByRole("dialog");
  await expect(detail.getByRole("heading", { name: "Layers crossed" })).toBeVisible();
  await expect(detail.getByText(/no HTTP answer \(network or CORS\)/).first()).toBeVisible();
  await expect(detail.locator(".layers li.failed")).toHaveCount(3);
  await snap(page, "errors-detail-network");
  await page.keyboard.press("Escape");
  await openRow(page, /Loopscope to Claude API: tool_result h500_echo/);
  await expect(page.getByRole("dialog").locator(".layers")).toContainText("HTTP 500");
  console.expectNone();
});
