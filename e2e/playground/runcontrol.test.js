// Run control in the playground, in headless Chromium against the
// built-in demo agent: a reload mid-run shows the user's message and
// resumes the active run (GET /runs/{id}/events) with nothing lost; Stop
// cancels the run; New thread cancels a waiting run, so the next message
// is not queued behind it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startAdapter } from "../lib/adapter.js";
import { launch } from "../lib/browser.js";

let adapter, browser, page;
before(async () => {
  adapter = await startAdapter(`
agents:
  demo: {type: demo, delay: 1ms, mcpServers: [refunds, genui]}
`);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(adapter.url + "/");
  await page.waitForFunction(() => window.__playground?.ready);
});
after(async () => {
  await browser?.close();
  await adapter?.stop();
});

// ask sends "ask" and waits until its question is shown (the run then
// waits for the answer).
// The page's event list keeps earlier runs' events: wait for a new
// snapshot, not any.
async function ask() {
  const seen = await page.evaluate(() => window.__playground.events.filter((e) => e.type === "ACTIVITY_SNAPSHOT").length);
  await page.locator("#input").fill("ask");
  await page.locator("#input").press("Enter");
  await page.waitForFunction((n) => window.__playground.state.running && window.__playground.events.filter((e) => e.type === "ACTIVITY_SNAPSHOT").length > n, seen, { timeout: 15000 });
}

const thread = () => page.evaluate(() => window.__playground.state.threadId);
const active = async (t) => (await (await fetch(`${adapter.url}/threads/${t}/messages`)).json()).activeRunId || "";

test("a reload mid-run shows the user's message and resumes the run; Stop cancels it", async () => {
  await ask();
  assert.equal(await page.locator("#stop").isVisible(), true);
  const runId = await page.evaluate(() => window.__playground.state.runId);
  const before = await page.evaluate(() => window.__playground.events.map((e) => e.type));
  await page.reload();
  await page.waitForFunction(() => window.__playground?.ready);
  // The user's message, from the thread's history during the run.
  assert.match(await page.locator("#messages li.user").first().innerText(), /^ask$/);
  // The run is followed again from its first event: nothing lost.
  await page.waitForFunction((n) => window.__playground.state.running && window.__playground.events.length >= n, before.length, { timeout: 15000 });
  assert.equal(await page.evaluate(() => window.__playground.state.runId), runId);
  const again = await page.evaluate(() => window.__playground.events.map((e) => e.type));
  assert.deepEqual(again.slice(0, before.length), before);
  assert.match(await page.locator("#messages").innerText(), /One question first/);
  assert.ok(await page.locator(".pair").count() >= 1, "the question's surface is not shown again");
  // Stop: the run ends cancelled, the composer is free.
  await page.locator("#stop").click();
  await page.waitForFunction(() => !window.__playground.state.running, null, { timeout: 15000 });
  assert.match(await page.locator("#messages").innerText(), /RUN_ERROR cancelled/);
  assert.equal(await page.locator("#stop").isHidden(), true);
  assert.equal(await active(await thread()), "");
});

test("New thread cancels the active run; the next message runs at once", async () => {
  await ask();
  const old = await thread();
  assert.notEqual(await active(old), "");
  await page.locator("#reset").click();
  assert.notEqual(await thread(), old);
  // The old thread's run is cancelled on the server.
  for (let i = 0; i < 50 && (await active(old)) !== ""; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await active(old), "", "the old thread's run is still active");
  // Nothing of the old run reaches the new thread, and "table" is not queued.
  const n = await page.evaluate(() => window.__playground.events.filter((e) => e.type === "RUN_FINISHED").length);
  await page.locator("#input").fill("table");
  await page.locator("#input").press("Enter");
  await page.waitForFunction((n) => window.__playground.events.filter((e) => e.type === "RUN_FINISHED").length > n && !window.__playground.state.running, n, { timeout: 15000 });
  assert.equal(await page.locator("#messages li.queued").count(), 0);
  assert.doesNotMatch(await page.locator("#messages").innerText(), /One question first|RUN_ERROR/);
});
