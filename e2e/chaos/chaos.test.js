// Faults in a scaled-out deployment: Debian's nginx (examples/deploy/nginx,
// rewritten to three app servers) in front of three instances of the real
// binary sharing a private Redis, a paced AG-UI upstream and a paced
// LangGraph Agent Server stand-in, and clients that resume with
// Last-Event-ID as the README says. Each phase starts a batch
// of runs, injects one fault while they stream, and then reads every run's
// events: missing, duplicated and out-of-order sequence numbers, and how
// the run ended.
//
// The short version runs in make test (CHAOS_STREAMS runs of CHAOS_SECONDS
// at CHAOS_RATE events/s per phase); `make chaos` runs the operator's
// figures (300 runs of 24 s at 25 events/s) and prints the table that
// docs/performance.md keeps.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync, chmodSync, appendFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startAdapter } from "../lib/adapter.js";
import { nginxMain } from "../lib/nginx.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const STREAMS = Number(process.env.CHAOS_STREAMS ?? 60);
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 10);
const RATE = Number(process.env.CHAOS_RATE ?? 20);
const TOTAL = SECONDS * RATE; // content events per run
const GRACE = "2s"; // shutdownGrace of every instance
const ROAM_EVERY = 3000; // a roaming client reconnects this often (ms)

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function waitPort(port, what) {
  for (let i = 0; ; i++) {
    try {
      await new Promise((r, j) => net.connect(port, "127.0.0.1", function () { this.end(); r(); }).on("error", j));
      return;
    } catch {
      if (i > 200) throw new Error(`${what} did not start`);
      await sleep(50);
    }
  }
}

// The paced upstream: every run streams TOTAL TEXT_MESSAGE_CONTENT events
// whose delta is its sequence number, one tick every 1000/RATE ms for all
// runs at once. A run whose adapter goes away stops.
function pacedUpstream() {
  const live = new Set();
  const frame = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const input = JSON.parse(body || "{}");
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const mid = `m-${input.runId}`;
    res.write(frame({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }) + frame({ type: "TEXT_MESSAGE_START", messageId: mid, role: "assistant" }));
    const s = { res, mid, input, i: 0 };
    live.add(s);
    res.on("close", () => live.delete(s));
  });
  // Node closes an idle keep-alive connection after 5 s, Go's transport
  // keeps one for 90 s: a run started on a connection Node closes as Go
  // reuses it fails (a POST is not retried) with upstream_unreachable.
  // A real upstream behind a proxy keeps them longer; so does this one.
  server.keepAliveTimeout = 120_000;
  const tick = setInterval(() => {
    for (const s of live) {
      if (s.i < TOTAL) {
        s.res.write(frame({ type: "TEXT_MESSAGE_CONTENT", messageId: s.mid, delta: `${s.i++} ` }));
      } else {
        s.res.end(frame({ type: "TEXT_MESSAGE_END", messageId: s.mid }) + frame({ type: "RUN_FINISHED", threadId: s.input.threadId, runId: s.input.runId }));
        live.delete(s);
      }
    }
  }, 1000 / RATE);
  return {
    server,
    live,
    close: () => { clearInterval(tick); server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}

// The paced LangGraph Agent Server: the same count, as a LangGraph run
// streams it (messages-tuple chunks, integer frame ids). A run goes on
// whether or not anyone follows it (on_disconnect "continue"), and GET
// .../runs/{r}/stream with Last-Event-ID joins it: the frames after that
// id, then the live ones, as the Agent Server does for stream_resumable
// runs. The adapter's LangGraph backend can hand such runs over and take
// them over after an instance died.
function langgraphUpstream() {
  const runs = new Map(); // run id -> {thread, frames, listeners, done}
  let next = 0;
  const frameOf = (id, event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\nid: ${id}\n\n`;
  const push = (r, event, data) => {
    const f = frameOf(r.frames.length, event, data);
    r.frames.push(f);
    for (const res of r.listeners) res.write(f);
  };
  const finish = (r) => {
    r.done = true;
    for (const res of r.listeners) res.end();
    r.listeners.clear();
  };
  const follow = (r, res, after) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (let i = after + 1; i < r.frames.length; i++) res.write(r.frames[i]);
    if (r.done) return res.end();
    r.listeners.add(res);
    res.on("close", () => r.listeners.delete(res));
  };
  const json = (res, status, v) => { res.writeHead(status, { "content-type": "application/json" }); res.end(JSON.stringify(v)); };
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const b = body ? JSON.parse(body) : {};
    const p = req.url.split("?")[0].split("/").filter(Boolean); // threads, t, runs, r, stream
    if (req.method === "POST" && p.length === 1 && p[0] === "threads") return json(res, 200, { thread_id: b.thread_id ?? randomBytes(8).toString("hex") });
    if (req.method === "POST" && p.length === 4 && p[2] === "runs" && p[3] === "stream") {
      const id = `lg-${++next}`;
      const user = b.input?.messages?.at(-1) ?? {};
      const r = { thread: p[1], frames: [], listeners: new Set(), done: false, i: 0, mid: `ai-${id}`, user };
      runs.set(id, r);
      push(r, "metadata", { run_id: id, attempt: 1 });
      return follow(r, res, -1);
    }
    const r = runs.get(p[3]);
    if (req.method === "GET" && p.length === 5 && p[4] === "stream") return r ? follow(r, res, Number(req.headers["last-event-id"] ?? -1)) : json(res, 404, { detail: "no run" });
    if (req.method === "POST" && p.length === 5 && p[4] === "cancel") {
      if (r && !r.done) finish(r);
      return json(res, 202, {});
    }
    if (req.method === "GET" && p.length === 4 && p[2] === "runs") return r ? json(res, 200, { run_id: p[3], status: r.done ? "success" : "running" }) : json(res, 404, {});
    if (p.at(-1) === "state") return json(res, 200, { values: {} });
    if (p.at(-1) === "history") return json(res, 200, []);
    json(res, 404, { detail: "not found" });
  });
  server.keepAliveTimeout = 120_000;
  const tick = setInterval(() => {
    for (const r of runs.values()) {
      if (r.done) continue;
      if (r.i < TOTAL) {
        push(r, "messages", [{ type: "AIMessageChunk", id: r.mid, content: `${r.i++} ` }, { langgraph_node: "model", ls_integration: "langchain_chat_model" }]);
      } else {
        const text = Array.from({ length: TOTAL }, (_, i) => `${i} `).join("");
        push(r, "values", { messages: [{ id: r.user.id ?? "u", type: "human", content: "count" }, { id: r.mid, type: "ai", content: text }] });
        finish(r);
      }
    }
  }, 1000 / RATE);
  return {
    server,
    close: () => { clearInterval(tick); server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}

let upstream, lgUpstream, nginx, redis, redisPort, redisDir, nginxPort;
const names = ["a", "b", "c"];
const inst = {}; // name -> {adapter, addr}
let yaml;

function startRedis() {
  redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--dir", redisDir, "--save", "", "--appendonly", "yes", "--appendfsync", "everysec"], { stdio: "ignore" });
  return waitPort(redisPort, "redis");
}

async function startInstance(name) {
  inst[name].adapter = await startAdapter(yaml, { listen: inst[name].addr, logLevel: "info" });
}

// logsOf is the lines of the instances' logs (from the offsets in from,
// by name) that match re, for a failure's message.
function logsOf(from, re, adapters = names.map((n) => [n, inst[n].adapter])) {
  return adapters.flatMap(([n, a]) => a.logs().slice(from[n] ?? 0).split("\n").filter((l) => re.test(l)).slice(-30).map((l) => `${n}: ${l}`)).join("\n");
}

async function stopInstance(name, signal) {
  const { child } = inst[name].adapter;
  const exited = new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));
  child.kill(signal);
  await exited;
}

before(async () => {
  upstream = pacedUpstream();
  await new Promise((r) => upstream.server.listen(0, "127.0.0.1", r));
  lgUpstream = langgraphUpstream();
  await new Promise((r) => lgUpstream.server.listen(0, "127.0.0.1", r));
  redisPort = await freePort();
  redisDir = mkdtempSync(join(tmpdir(), "chaos-redis-"));
  await startRedis();
  yaml = `runlog: {backend: redis, url: "redis://127.0.0.1:${redisPort}/0", prefix: "chaos-${randomBytes(3).toString("hex")}:"}
shutdownGrace: ${GRACE}
detachGrace: 60s
heartbeat: 1s
limits: {runStartsPerSecond: -1}
agents:
  paced: {type: agui, url: "http://127.0.0.1:${upstream.server.address().port}/agent"}
  lgpaced: {type: langgraph, url: "http://127.0.0.1:${lgUpstream.server.address().port}", graph: paced, subgraphs: false}
`;
  for (const n of names) {
    inst[n] = { addr: `127.0.0.1:${await freePort()}` };
    await startInstance(n);
  }
  nginxPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "nginx-chaos-"));
  chmodSync(dir, 0o777);
  const conf = readFileSync(join(root, "examples", "deploy", "nginx", "genui-adapter.conf"), "utf8")
    .replace(/server 127\.0\.0\.1:8080;\s*server 127\.0\.0\.1:8090;/, names.map((n) => `server ${inst[n].addr};`).join("\n    "))
    .replace(/server 127\.0\.0\.1:8081;\s*server 127\.0\.0\.1:8091;/, "server 127.0.0.1:9;")
    .replaceAll("listen 80;", `listen 127.0.0.1:${nginxPort};`);
  assert.ok(conf.includes(inst.c.addr), "the nginx example's upstream block changed shape");
  writeFileSync(join(dir, "genui-adapter.conf"), conf);
  writeFileSync(join(dir, "nginx.conf"), nginxMain(dir, join(dir, "genui-adapter.conf"), "add_header X-Upstream $upstream_addr always;"));
  nginx = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: ["ignore", "inherit", "inherit"] });
  await waitPort(nginxPort, "nginx");
});

after(async () => {
  nginx?.kill("SIGTERM");
  await Promise.all(names.map((n) => inst[n]?.adapter && stopInstance(n, "SIGKILL")));
  redis?.kill("SIGKILL");
  await upstream?.close();
  await lgUpstream?.close();
});

// stream sends one request through nginx and feeds each SSE frame to
// onFrame. It resolves with {status, upstream, body} when the response
// ends, breaks, or abort() is called.
function stream(path, { method = "GET", body, headers = {}, onFrame, signal }) {
  return new Promise((resolveReq) => {
    const out = { status: 0, upstream: "", body: "" };
    const req = http.request({ host: "127.0.0.1", port: nginxPort, path, method, headers: { Host: "app.example.com", ...(body ? { "content-type": "application/json" } : {}), ...headers } }, (res) => {
      out.status = res.statusCode;
      out.upstream = res.headers["x-upstream"] ?? "";
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        if (res.statusCode !== 200) {
          out.body += chunk;
          return;
        }
        buf += chunk;
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let id, data;
          for (const line of block.split("\n")) {
            if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith("data:")) data = JSON.parse(line.slice(5));
          }
          if (data) onFrame(id, data);
        }
      });
      res.on("end", () => resolveReq(out));
      res.on("error", () => resolveReq(out));
      res.on("aborted", () => resolveReq(out));
    });
    req.on("error", () => resolveReq(out));
    signal?.addEventListener("abort", () => { req.destroy(); resolveReq(out); });
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const byAddr = () => Object.fromEntries(names.map((n) => [inst[n].addr, n]));

// client runs one run to its end: it starts it, and whenever its stream
// breaks (or, roaming, every ROAM_EVERY ms) resumes it from the last id.
async function client(phase, k, roam, deadline, agent) {
  const run = { id: `${phase}-${k}-${randomBytes(3).toString("hex")}`, seqs: [], ids: [], owner: "", end: null, resumes: 0, refusals: [] };
  let lastId = "";
  const onFrame = (id, ev) => {
    if (id) {
      run.ids.push(id);
      lastId = id;
    }
    if (ev.type === "TEXT_MESSAGE_CONTENT") run.seqs.push(Number(ev.delta));
    if (ev.type === "RUN_FINISHED" || ev.type === "RUN_ERROR") run.end = ev.type === "RUN_FINISHED" ? "finished" : `error:${ev.code}`;
  };
  const roamer = () => {
    if (!roam) return undefined;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), ROAM_EVERY).unref();
    return ac.signal;
  };
  const body = { threadId: `t-${run.id}`, runId: run.id, messages: [{ id: `u-${run.id}`, role: "user", content: "count" }] };
  const first = await stream(`/agents/${agent}/run`, { method: "POST", body, onFrame, signal: roamer() });
  run.owner = byAddr()[first.upstream] ?? first.upstream;
  if (first.status !== 200 && first.status !== 0) {
    run.end = `refused:${first.status}`;
    run.refusals.push(first.body);
    return run;
  }
  // A start that broke before its answer (a roaming client's timer, an
  // instance stopping) is resumed by its run id from the beginning; a
  // run that never started is 404 run_not_found every time.
  let notFound = 0;
  while (!run.end && Date.now() < deadline) {
    await sleep(100);
    run.resumes++;
    const r = await stream(`/runs/${run.id}/events`, { headers: lastId ? { "last-event-id": lastId } : {}, onFrame, signal: roamer() });
    if (r.status === 404 && !lastId && ++notFound >= 10) {
      run.end = "refused:404";
      break;
    }
    if (r.status !== 200 && r.status !== 0) {
      run.refusals.push(`${r.status} ${r.body.slice(0, 200)}`);
      await sleep(400);
    }
  }
  if (!run.end) run.end = "unended";
  return run;
}

// check sums up a phase's runs: per run, the sequence numbers must be
// 0,1,2,... without a repeat or a step back; a finished run has all TOTAL.
function check(runs) {
  const s = { runs: runs.length, ends: {}, missing: 0, duplicated: 0, outOfOrder: 0, duplicatedIds: 0, resumes: 0, bad: [] };
  for (const r of runs) {
    s.ends[r.end] = (s.ends[r.end] ?? 0) + 1;
    s.resumes += r.resumes;
    const seen = new Set();
    let max = -1, dup = 0, back = 0;
    for (const q of r.seqs) {
      if (seen.has(q)) dup++;
      else if (q < max) back++;
      seen.add(q);
      max = Math.max(max, q);
    }
    const expected = r.end === "finished" ? TOTAL : max + 1;
    const missing = expected - seen.size;
    const dupIds = r.ids.length - new Set(r.ids).size;
    s.missing += missing;
    s.duplicated += dup;
    s.outOfOrder += back;
    s.duplicatedIds += dupIds;
    if (missing || dup || back || dupIds) s.bad.push({ run: r.id, owner: r.owner, end: r.end, missing, dup, back, dupIds, resumes: r.resumes });
  }
  return s;
}

function rss() {
  const out = {};
  for (const n of names) {
    try {
      const st = readFileSync(`/proc/${inst[n].adapter.child.pid}/status`, "utf8");
      out[n] = Math.round(Number(st.match(/VmHWM:\s+(\d+)/)[1]) / 1024);
    } catch {
      out[n] = null;
    }
  }
  return out;
}

function report(phase, runs, s) {
  const line = { phase, streams: STREAMS, seconds: SECONDS, rate: RATE, ...s, bad: s.bad.length, peakRssMiB: rss() };
  console.log(`chaos ${JSON.stringify(line)}`);
  if (process.env.CHAOS_REPORT) appendFileSync(process.env.CHAOS_REPORT, JSON.stringify(line) + "\n");
}

// phase starts STREAMS runs (a third of them roaming), calls fault while
// they stream, and waits for every run to end.
async function phase(name, fault, agent = "paced") {
  const deadline = Date.now() + (SECONDS * 3 + 40) * 1000;
  const runs = Array.from({ length: STREAMS }, (_, k) => client(name, k, k % 3 === 0, deadline, agent));
  await sleep(Math.min(3000, (SECONDS * 1000) / 4));
  await fault();
  const done = await Promise.all(runs);
  const s = check(done);
  report(name, done, s);
  return { runs: done, s };
}

const ok = (s) => `${JSON.stringify({ ...s, bad: s.bad.slice(0, 5) })}`;

test("steady: three instances behind nginx, roaming clients, nothing lost", async () => {
  const { s } = await phase("steady", async () => {});
  assert.deepEqual(s.ends, { finished: STREAMS }, ok(s));
  assert.equal(s.bad.length, 0, ok(s));
});

test("kill -9 of one instance: the others' runs lose nothing, its runs end owner_lost", async () => {
  const { runs, s } = await phase("kill", async () => {
    await stopInstance("c", "SIGKILL");
    await sleep(1000);
    await startInstance("c");
  });
  assert.equal(s.bad.length, 0, ok(s));
  for (const r of runs) {
    if (r.owner === "c") assert.equal(r.end, "error:owner_lost", `${r.id} on the killed instance ended ${r.end}`);
    else assert.equal(r.end, "finished", `${r.id} on ${r.owner} ended ${r.end}`);
  }
  assert.ok(runs.some((r) => r.owner === "c"), "no run was on the killed instance");
});

test("Redis paused for 5 s: no run ends, nothing lost", async () => {
  const { s } = await phase("redis-pause", async () => {
    redis.kill("SIGSTOP");
    await sleep(5000);
    redis.kill("SIGCONT");
  });
  assert.deepEqual(s.ends, { finished: STREAMS }, ok(s));
  assert.equal(s.bad.length, 0, ok(s));
});

test("Redis restarted (5 s down): no run ends, nothing lost", async () => {
  const { s } = await phase("redis-restart", async () => {
    const exited = new Promise((r) => redis.once("exit", r));
    redis.kill("SIGTERM"); // an orderly restart: the append-only file is complete
    await exited;
    await sleep(5000);
    await startRedis();
  });
  assert.deepEqual(s.ends, { finished: STREAMS }, ok(s));
  assert.equal(s.bad.length, 0, ok(s));
});

// The same faults with a LangGraph agent, whose runs can move: the runs
// of a killed instance are taken over from their checkpoints once its
// lease lapsed, and a rolling restart hands each run over to another
// instance. Every run finishes, nothing lost or repeated. (The kill comes
// before the rolling restarts: nginx routes to a restarted instance again
// only after its fail_timeout.)
test("LangGraph runs, kill -9 of one instance: its runs taken over from their checkpoints, every run finished, nothing lost", async () => {
  const from = Object.fromEntries(names.map((n) => [n, inst[n].adapter.logs().length]));
  let killed;
  const { runs, s } = await phase("lg-kill", async () => {
    killed = inst.c.adapter;
    await stopInstance("c", "SIGKILL");
    await sleep(1000);
    await startInstance("c");
  }, "lgpaced");
  const why = () => ok(s) + "\n" + logsOf(from, /level=(WARN|ERROR)|offered|taken over/, [["killed c", killed], ["a", inst.a.adapter], ["b", inst.b.adapter], ["c", inst.c.adapter]]);
  assert.deepEqual(s.ends, { finished: STREAMS }, why());
  assert.equal(s.bad.length, 0, ok(s));
  assert.ok(runs.some((r) => r.owner === "c"), "no run was on the killed instance: " + JSON.stringify(runs.map((r) => r.owner)));
});

// No run is taken over: the paced upstream is an AG-UI agent, which
// cannot be rejoined (docs/deployment.md#rolling-restarts; LangGraph runs
// are, e2e/langgraph/handover.test.js). A run still
// going when its instance's shutdownGrace runs out ends with a RUN_ERROR
// code (shutdown; owner_lost where the instance exited before it could
// write that), and every event delivered before it is kept.
test("rolling restart: each instance drains in turn; every run ends with a code, nothing lost before the end", async () => {
  const logs = [];
  const from = Object.fromEntries(names.map((n) => [n, inst[n].adapter.logs().length]));
  const { runs, s } = await phase("rolling", async () => {
    for (const n of names) {
      const { adapter } = inst[n];
      await stopInstance(n, "SIGTERM");
      logs.push(...adapter.logs().slice(from[n]).split("\n").filter((l) => /level=(WARN|ERROR)/.test(l)).map((l) => `${n}: ${l}`));
      await startInstance(n);
      await sleep(500);
    }
  });
  if (logs.length) console.log(`rolling: the stopped instances' warnings:\n${logs.slice(0, 20).join("\n")}`);
  assert.equal(s.bad.length, 0, ok(s));
  for (const r of runs) assert.match(r.end, /^(finished|error:[a-z_]+)$/, `${r.id} on ${r.owner} ended ${r.end}`);
  assert.ok((s.ends["error:shutdown"] ?? 0) + (s.ends.finished ?? 0) > 0, ok(s));
});

test("LangGraph runs, rolling restart: every run handed over and finished, nothing lost", async () => {
  const { s } = await phase("lg-rolling", async () => {
    for (const n of names) {
      await stopInstance(n, "SIGTERM");
      await startInstance(n);
      await sleep(500);
    }
  }, "lgpaced");
  assert.deepEqual(s.ends, { finished: STREAMS }, ok(s));
  assert.equal(s.bad.length, 0, ok(s));
});
