// One unpaced stream read by the real @ag-ui/client (0.0.57, 0.0.59, 1.0.0
// and 1.0.4), directly from the load tool's scripted upstream, through the
// load tool's byte-copy pass-through (the floor any relay pays) and through
// the adapter (the load tool's adapter role, HTTP/1.1 to the upstream,
// memory run log), each in its own process. Two ways to read:
//   - HttpAgent.run: every event parsed and verified, nothing applied;
//   - HttpAgent.runAgent: every event applied to the agent's messages, as
//     a chat frontend does (a smaller N: the client is slow at it).
// Prints events/s per run and the relays' ratios to direct (medians).
//
//   node bench/unpaced-clients.mjs        (N=200000 and 20000 by default;
//                                          CLIENTS=1.0.0 for one version)
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { goBinary } from "../lib/gobin.js";
import * as c057 from "agui-client-0057";
import * as c059 from "agui-client-0059";
import * as c100 from "agui-client-100";
import * as c104 from "agui-client-104";

const N = Number(process.env.N || 200000);
const NAPPLIED = Number(process.env.NAPPLIED || 20000);
const RUNS = Number(process.env.RUNS || 5);
const loadgen = goBinary("./cmd/loadgen");
const children = [];

function role(...args) {
  const p = spawn(loadgen, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.push(p);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${args.join(" ")} did not start`)), 30000);
    createInterface({ input: p.stdout }).on("line", (l) => {
      if (l.startsWith("ready ")) {
        clearTimeout(t);
        resolve(l.slice(6));
      }
    });
  });
}

function parsed(mod, url, n) {
  const agent = new mod.HttpAgent({ url });
  return new Promise((resolve, reject) => {
    let got = 0;
    const t0 = performance.now();
    agent.run({ threadId: `t${Math.random()}`, runId: `r${Math.random()}`, messages: [], tools: [], context: [], state: {}, forwardedProps: { N: n, Rate: 0 } }).subscribe({
      next: (e) => { if (e.type === "TEXT_MESSAGE_CONTENT") got++; },
      error: reject,
      complete: () => resolve({ got, seconds: (performance.now() - t0) / 1000 }),
    });
  });
}

async function applied(mod, url, n) {
  const agent = new mod.HttpAgent({ url, threadId: `t${Math.random()}`, initialMessages: [] });
  let got = 0;
  const t0 = performance.now();
  await agent.runAgent({ runId: `r${Math.random()}`, forwardedProps: { N: n, Rate: 0 } }, { onTextMessageContentEvent: () => { got++; } });
  return { got, seconds: (performance.now() - t0) / 1000 };
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

// The adapter's memory run log fills before anything is measured, as the
// load tool's one-stream scenario does (cmd/loadgen fillRunLog):
// until then every event it keeps lands in memory the process has never
// touched, and a page fault on this kind of VM costs about 10 µs.
const logBudget = 128 * 1024 * 1024; // runlog.DefaultMaxBytes
async function eventsHeld(base) {
  const page = await (await fetch(`${base}/metrics`)).text();
  const m = page.match(/^genui_store_bytes\{store="events"\} (\S+)$/m);
  return m ? Number(m[1]) : -1;
}
async function fillRunLog(base) {
  for (let i = 1; i <= 30; i++) {
    const res = await fetch(`${base}/agents/load/run`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ threadId: `fill${i}`, runId: `fill${i}`, messages: [], forwardedProps: { N: 200000, Rate: 0 } }),
    });
    await res.arrayBuffer();
    if ((await eventsHeld(base)) >= 0.95 * logBudget) return i;
  }
  throw new Error("the adapter's run log did not fill");
}

try {
  const up = await role("-role", "upstream");
  const passthrough = await role("-role", "passthrough", "-h2=false", "-upstream", `http://${up}`);
  const adapter = await role("-role", "adapter", "-h2=false", "-upstream", `http://${up}`);
  const targets = { direct: `http://${up}/run`, passthrough: `http://${passthrough}/run`, adapter: `http://${adapter}/agents/load/run` };
  const clients = (process.env.CLIENTS || "0.0.57,0.0.59,1.0.0,1.0.4").split(",");
  const filled = await fillRunLog(`http://${adapter}`);
  console.log(`one unpaced stream, ${RUNS} rounds of every target after a warm-up; events/s (the adapter's run log full after ${filled} streams)`);
  // Every client's run first, then every client's runAgent: the slow
  // applied streams leave the adapter quiet enough to hand its free heap
  // back, and the next flood would fault it in again.
  for (const [how, read, n] of [["run (parsed)", parsed, N], ["runAgent (applied)", applied, NAPPLIED]]) {
    for (const [v, mod] of [["0.0.57", c057], ["0.0.59", c059], ["1.0.0", c100], ["1.0.4", c104]].filter(([v]) => clients.includes(v))) {
      const rates = {};
      for (const [name, url] of Object.entries(targets)) {
        await read(mod, url, Math.min(n, 2000));
        rates[name] = [];
      }
      // Round by round, every target in turn: the machine's drift
      // (another tenant, a frequency change) falls on all of them alike.
      for (let i = 0; i < RUNS; i++) {
        for (const [name, url] of Object.entries(targets)) {
          const r = await read(mod, url, n);
          if (r.got !== n) throw new Error(`${v} ${how} ${name}: ${r.got} of ${n} events`);
          rates[name].push(r.got / r.seconds);
        }
      }
      const fmt = (v) => v.map((r) => `${Math.round(r / 1000)}k`).join(" ");
      const ratio = (name) => (median(rates[name]) / median(rates.direct)).toFixed(2);
      console.log(`${v.padEnd(7)} ${how.padEnd(19)} N=${n}: direct ${fmt(rates.direct)}, pass-through ${fmt(rates.passthrough)}, adapter ${fmt(rates.adapter)}; pass-through/direct ${ratio("passthrough")}x, adapter/direct ${ratio("adapter")}x`);
    }
  }
} finally {
  for (const p of children) p.kill("SIGTERM");
}
