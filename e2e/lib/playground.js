// Driving the playground page (adapter/playground) in the browser tests.

// runsEnded counts the runs the page has seen end (RUN_FINISHED or
// RUN_ERROR).
export const runsEnded = (page) => page.evaluate(() => window.__playground.events.filter((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR").length);

// say types text into the page's composer, sends it, and waits until the
// run it starts (and any follow-up) has ended and the page is idle.
export async function say(page, text, timeout = 20000) {
  const before = await runsEnded(page);
  await page.locator("#input").fill(text);
  await page.locator("#input").press("Enter");
  await page.waitForFunction((n) => window.__playground.events.filter((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR").length > n && !window.__playground.state.running, before, { timeout });
}
