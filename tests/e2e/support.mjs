// Shared helpers for the end-to-end specs.
import { expect } from "@playwright/test";
import { mkdirSync } from "node:fs";

export const SCREENSHOTS = new URL("../../target/e2e/screenshots/", import.meta.url).pathname;
mkdirSync(SCREENSHOTS, { recursive: true });

/** Saves a full-page screenshot named after the state it shows. */
export async function snap(page, name) {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png` });
}

/** Collects console errors and uncaught exceptions; call `expectNone()` at the end of a test. */
export function watchConsole(page) {
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  return { errors, expectNone: () => expect(errors, errors.join("\n")).toEqual([]) };
}

/** Opens the app and waits until the Leptos UI has mounted. */
export async function openApp(page) {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Loopscope" })).toBeVisible();
}
