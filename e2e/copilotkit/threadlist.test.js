// The thread list and suggestion chips in the real CopilotKit 1.74 page
// (web/, ?threads=1&suggest=1) in headless Chromium, against the adapter
// with auth on: the list is CopilotKit's useThreads (GET /threads), so it
// shows the signed-in principal's threads and no one else's; picking one
// reopens it with its messages and its A2UI surface (/connect); deleting
// one removes it (DELETE /threads/{id}); the chips come from
// useConfigureSuggestions through agent/:id/suggest, and clicking one
// runs it. Then the page's boxes are measured at 1440, 800 and 390 px,
// light and dark (no horizontal scroll, nothing outside its card), with a
// screenshot of each in e2e/artifacts/.
//
// The prebuilt CopilotThreadsDrawer is not used: it shows its locked
// "Upgrade" view unless /info reports a CopilotKit Intelligence licence,
// which the adapter does not claim (docs/copilotkit.md).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { launch, artifacts } from "../lib/browser.js";
import { serveDist } from "./dist.js";

const alice = "alice-token-123";
const bob = "bob-token-12345";
let adapter, web, browser, runtime;

// api calls the adapter's CopilotKit routes as a principal.
async function api(token, method, path, body) {
  const res = await fetch(`${runtime}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "text/event-stream" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text };
}

// seed starts a thread in the page as a principal (New, then say), and
// names it through the API; it returns the thread's id.
async function seed(token, say, answer, name) {
  const { page } = await open(token);
  await page.locator(".threads-new").click();
  const box = page.locator("textarea").first();
  await box.fill(say);
  await box.press("Enter");
  await page.getByText(answer, { exact: false }).first().waitFor({ timeout: 20000 });
  const id = await page.locator("[data-testid=thread-list] li.active").getAttribute("data-thread", { timeout: 20000 });
  await page.close();
  const p = await api(token, "PATCH", `/threads/${id}`, { agentId: "default", name });
  assert.equal(p.status, 200, p.text);
  return id;
}

const ids = {};
before(async () => {
  web = await serveDist();
  adapter = await startAdapter(`cors: {origins: ["${web.url}"]}
auth: {bearerTokens: {alice: ${alice}, bob: ${bob}}}
agents:
  default: {type: demo, delay: 2ms, mcpServers: [refunds], description: "demo"}
`);
  runtime = adapter.url + "/api/copilotkit";
  browser = await launch();
  ids.shipments = await seed(alice, "table", "There are 3 shipments", "Shipments this week");
  ids.hello = await seed(alice, "hello", "I am the genui-adapter demo agent", "Greeting");
  ids.bob = await seed(bob, "record", "Here is the customer record", "Bob's private thread");
});
after(async () => {
  await browser?.close();
  await adapter?.stop();
  await web?.close();
});

async function open(token, { width = 1440, height = 900, theme = "light", thread } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const traffic = [];
  page.on("request", (r) => { if (r.url().startsWith(adapter.url)) traffic.push({ method: r.method(), url: r.url().slice(runtime.length), body: r.postData() }); });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${web.url}/?runtime=${encodeURIComponent(runtime)}&token=${token}&threads=1&suggest=1&theme=${theme}${thread ? `&thread=${thread}` : ""}`);
  await page.locator("textarea").first().waitFor({ timeout: 20000 });
  await page.waitForLoadState("networkidle", { timeout: 20000 });
  return { page, traffic, errors };
}

const rowNames = (page) => page.locator("[data-testid=thread-list] .thread-name").allInnerTexts();

// untilNames waits until the thread list shows exactly names (any order).
async function untilNames(page, names) {
  let got;
  for (let i = 0; i < 100; i++) {
    got = await rowNames(page);
    if (JSON.stringify([...got].sort()) === JSON.stringify([...names].sort())) return got;
    await page.waitForTimeout(100);
  }
  assert.fail(`thread list: got ${JSON.stringify(got)}, want ${JSON.stringify(names)}`);
}

test("the thread list: a principal's threads only, reopen one with its surface, delete one; suggestion chips run", async () => {
  const { page, traffic, errors } = await open(alice);
  // Newest first, and none of bob's.
  assert.deepEqual(await untilNames(page, ["Greeting", "Shipments this week"]), ["Greeting", "Shipments this week"]);
  assert.ok(traffic.some((t) => t.method === "GET" && t.url.startsWith("/threads?")), "no GET /threads");

  // Reopen the shipments thread: its messages and its A2UI surface.
  await page.locator(`[data-thread="${ids.shipments}"] .thread-open`).click();
  await page.getByText("Here are this week's shipments.", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText("List shipments", { exact: true }).first().waitFor({ timeout: 20000 });
  await page.getByRole("button", { name: "Select" }).first().waitFor({ timeout: 20000 });
  assert.ok(traffic.some((t) => t.url === "/agent/default/connect" && JSON.parse(t.body).threadId === ids.shipments), "no /connect for the picked thread");
  assert.equal(await page.locator(`[data-thread="${ids.shipments}"]`).getAttribute("class"), "active");

  // Suggestion chips from agent/:id/suggest; clicking one runs it in this thread.
  const chip = page.getByRole("button", { name: "Fill in a form" });
  await chip.waitFor({ timeout: 20000 });
  assert.ok(traffic.some((t) => t.url === "/agent/default/suggest"), "no suggest request");
  const runsBefore = traffic.filter((t) => t.url === "/agent/default/run").length;
  await chip.click();
  await page.getByText("Please fill in this form", { exact: false }).first().waitFor({ timeout: 20000 });
  const run = traffic.filter((t) => t.url === "/agent/default/run").slice(runsBefore)[0];
  assert.ok(run, "the chip did not start a run");
  const sent = JSON.parse(run.body);
  assert.equal(sent.threadId, ids.shipments);
  assert.equal(sent.messages.at(-1).content, "form");
  // Suggestion runs left no thread behind: still two.
  await untilNames(page, ["Greeting", "Shipments this week"]);

  // Delete the greeting: gone from the list and from the server.
  await page.locator(`[data-thread="${ids.hello}"] .thread-delete`).click();
  await untilNames(page, ["Shipments this week"]);
  assert.ok(traffic.some((t) => t.method === "DELETE" && t.url === `/threads/${ids.hello}`), "no DELETE /threads/{id}");
  const left = JSON.parse((await api(alice, "GET", "/threads?agentId=default")).text);
  assert.deepEqual(left.threads.map((t) => t.id), [ids.shipments]);
  assert.deepEqual(errors, []);
  await page.close();

  // Bob's page: his thread only; alice's thread id in the URL opens empty.
  const b = await open(bob, { thread: ids.shipments });
  assert.deepEqual(await untilNames(b.page, ["Bob's private thread"]), ["Bob's private thread"]);
  await b.page.waitForTimeout(500);
  const text = await b.page.locator("[data-testid=chat-pane]").innerText();
  assert.ok(!text.includes("shipments"), `bob sees alice's thread: ${text.slice(0, 300)}`);
  await b.page.close();
});

// measure lists what breaks the layout: a horizontal page scroll, a box
// outside the viewport, or an element outside its card (the thread list,
// the chat pane, a message, an A2UI card, the chip row). An A2UI card
// may scroll inside itself only when narrow (a table wider than the
// phone).
function measure(narrow) {
  const out = [];
  const se = document.scrollingElement;
  if (se.scrollWidth > se.clientWidth) out.push(`page scrolls horizontally: ${se.scrollWidth} > ${se.clientWidth}`);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none" || cs.position === "fixed") return null;
    return r;
  };
  const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : ""} "${(el.innerText || "").slice(0, 30)}"`;
  // scrolledAway: el sits in a scroll box (between it and card) that
  // clips it; what shows is the scroll box, measured itself.
  const scrolledAway = (el, card) => {
    for (let p = el.parentElement; p && p !== card; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible" && p.scrollWidth > p.clientWidth) return true;
    }
    return false;
  };
  const within = (cardSel, skipScrolled) => {
    for (const card of document.querySelectorAll(cardSel)) {
      const c = visible(card);
      if (!c) continue;
      if (c.left < -0.5 || c.right > innerWidth + 0.5) out.push(`${cardSel} outside the viewport: ${c.left}..${c.right}`);
      if (skipScrolled && card.scrollWidth > card.clientWidth) {
        if (!narrow) out.push(`${cardSel} scrolls inside: ${card.scrollWidth} > ${card.clientWidth}`);
        continue;
      }
      for (const el of card.querySelectorAll("*")) {
        const r = visible(el);
        if (r && !scrolledAway(el, card) && (r.left < c.left - 0.5 || r.right > c.right + 0.5)) out.push(`${name(el)} outside ${cardSel}: ${Math.round(r.left)}..${Math.round(r.right)} not in ${Math.round(c.left)}..${Math.round(c.right)}`);
      }
    }
  };
  within("[data-testid=thread-list]");
  within("[data-testid=chat-pane]");
  within("[data-testid=copilot-suggestions]");
  within(".a2ui-surface > div", true);
  return out;
}

for (const theme of ["light", "dark"]) {
  for (const [width, height] of [[1440, 900], [800, 900], [390, 844]]) {
    test(`layout at ${width} px, ${theme}: no horizontal scroll, nothing outside its card`, async () => {
      const { page, errors } = await open(alice, { width, height, theme });
      await page.locator(`[data-thread="${ids.shipments}"] .thread-open`).click({ timeout: 20000 });
      await page.getByText("List shipments", { exact: true }).first().waitFor({ timeout: 20000 });
      await page.waitForLoadState("networkidle");
      await page.getByRole("button", { name: "Fill in a form" }).waitFor({ timeout: 20000 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(artifacts, `copilotkit-threads-${width}-${theme}.png`) });
      const problems = await page.evaluate(measure, width < 700);
      assert.deepEqual(problems, []);
      // Dark mode is dark, and the A2UI card's text stays readable on its
      // white background.
      const colors = await page.evaluate(() => ({
        body: getComputedStyle(document.body).backgroundColor,
        cell: getComputedStyle([...document.querySelectorAll(".a2ui-surface span")].find((s) => s.textContent === "DHL")).color,
      }));
      assert.equal(colors.body, theme === "dark" ? "rgb(18, 19, 22)" : "rgb(246, 247, 249)");
      assert.equal(colors.cell, "rgb(29, 31, 35)");
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}
