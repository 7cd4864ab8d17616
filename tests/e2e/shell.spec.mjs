// The app shell: it loads cleanly, every area has an accessible name, and it works by keyboard.
import { test, expect } from "@playwright/test";
import { lowContrast, openApp, snap, watchConsole } from "./support.mjs";

test("shell loads without console errors and names every area", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  for (const name of ["Settings", "Servers", "Chat", "Timeline"]) {
    await expect(page.getByRole("region", { name })).toBeVisible();
  }
  await expect(page.getByRole("banner")).toContainText("Loopscope");
  await expect(page.getByRole("main")).toBeVisible();
  await expect(page.getByRole("log", { name: "Conversation" })).toBeVisible();
  await expect(page.getByRole("list", { name: "The four phases" })).toContainText("tool_result returns");
  // Before anything happens, the timeline says what each phase is, in the article's terms.
  const stories = page.getByRole("list", { name: "What happens in each phase" }).getByRole("listitem");
  await expect(stories).toHaveCount(4);
  await expect(stories.nth(1)).toContainText("It knows nothing of MCP.");
  await expect(stories.nth(3)).toContainText("is_error: true; leaving it out gets a 400");
  await snap(page, "shell-light");
  console.expectNone();
});

test("one build runs under a sub-path and at the site root", async ({ page }) => {
  const console = watchConsole(page);
  const failed = [];
  let paths = [];
  page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  page.on("request", (r) => paths.push(new URL(r.url()).pathname));
  for (const [path, where] of [["./", "/loopscope/"], ["/", "/"]]) {
    paths = [];
    await openApp(page, path);
    expect(new URL(page.url()).pathname).toBe(where);
    // Every file came from the page's own folder and no other (both folders hold the same
    // files, so an absolute asset URL would load, from the wrong place, without this check).
    const elsewhere = (p) => (where === "/" ? p.startsWith("/loopscope/") : !p.startsWith(where));
    // One first chunk of wasm (the others, fetched when the page is idle, come from the same folder).
    expect(paths.filter((p) => p.endsWith("_bg.wasm"))).toHaveLength(1);
    expect(paths.filter(elsewhere), paths.join("\n")).toEqual([]);
    // Styled (the stylesheet came from the same folder) and running (the wasm answers a click).
    await expect(page.getByRole("banner")).toHaveCSS("display", "flex");
    await page.getByRole("radio", { name: where === "/" ? "Claude API" : "Demo model (no key)" }).check();
    await expect(page.getByText("The demo model is scripted in this page")).toHaveCount(where === "/" ? 0 : 1);
    // The chunks prefetched when the page is idle come from the same folder too; wait for the
    // last of them before leaving, so none of this page's requests is counted as the next one's.
    const wasm = await (await page.request.get(new URL("wasm.json", page.url()).href)).json();
    const chunks = [...new Set(Object.values(wasm.chunks).flat())].map((f) => `${where}${f}`);
    await expect.poll(() => chunks.filter((c) => !paths.includes(c)), { message: "chunks not prefetched" }).toEqual([]);
    expect(paths.filter(elsewhere), paths.join("\n")).toEqual([]);
  }
  expect(failed, failed.join("\n")).toEqual([]);
  console.expectNone();
});

test("keyboard: skip link and theme toggle", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await openApp(page);
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to the message box" });
  await expect(skip).toBeFocused();
  for (const name of ["Skip to the timeline", "Skip to adding a server"]) {
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name })).toBeFocused();
  }
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Presenter view" })).toBeFocused();
  await page.keyboard.press("Tab");
  const toggle = page.getByRole("button", { name: "Switch to dark theme" });
  await expect(toggle).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(page.getByRole("button", { name: "Switch to light theme" })).toBeFocused();
  await snap(page, "shell-dark");
  // The choice survives a reload.
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
});

test("dark theme follows the system until the user picks one", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await openApp(page);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
});

test("every text reads at 4.5:1 or more in light and dark, the phase colours included (WCAG AA)", async ({ page }) => {
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    await openApp(page);
    await expect(page.locator("html")).toHaveAttribute("data-theme", scheme);
    await expect(page.getByRole("list", { name: "What happens in each phase" })).toBeVisible();
    expect(await lowContrast(page), scheme).toEqual([]);
  }
});
