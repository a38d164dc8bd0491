// Behind a real reverse proxy: Debian's nginx runs examples/deploy/nginx
// (only its ports and names rewritten) in front of two instances of the
// real binary that share Redis and run examples/deploy/instance.yaml (plus
// a slow demo agent, a demo agent with cards, a short heartbeat), with JWT auth against a local
// JWKS. Checked: SSE is not buffered and heartbeats pass; a run started
// through one instance is resumed and cancelled through the other; the
// sandbox is served on its own server name only.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync, chmodSync } from "node:fs";
import { generateKeyPairSync, sign, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startAdapter } from "../lib/adapter.js";
import { nginxMain } from "../lib/nginx.js";
import { freePort, waitPort } from "../lib/ports.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const deploy = join(root, "examples", "deploy");

// A local identity provider: one RSA key, its JWKS, signed tokens.
function identityProvider() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: "jwk" }), kid: "k1", alg: "RS256", use: "sig" };
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return {
    server,
    token(issuer, sub, { expiresIn = 3600 } = {}) {
      const now = Math.floor(Date.now() / 1000);
      const data = `${b64({ alg: "RS256", typ: "JWT", kid: "k1" })}.${b64({ iss: issuer, aud: "genui-adapter", sub, iat: now, exp: now + expiresIn })}`;
      return `${data}.${sign("sha256", Buffer.from(data), privateKey).toString("base64url")}`;
    },
  };
}

let nginx, instances = [], idp, port, appHost, sandboxHost, token, addr = {};

before(async () => {
  idp = identityProvider();
  await new Promise((r) => idp.server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${idp.server.address().port}/`;
  port = await freePort();
  appHost = `app.example.com:${port}`;
  sandboxHost = `sandbox.example.com:${port}`;
  token = idp.token(issuer, "carol");

  const yaml = readFileSync(join(deploy, "instance.yaml"), "utf8") + "  slow: {type: demo, delay: 300ms}\n  cards: {type: demo, mcpServers: [refunds]}\nheartbeat: 200ms\ndetachGrace: 60s\n";
  const env = {
    GENUI_SANDBOX_KEY: randomBytes(16).toString("hex"),
    GENUI_CAPABILITY_KEY: randomBytes(16).toString("hex"),
    GENUI_REDIS_URL: "redis://127.0.0.1:6379/0",
    GENUI_REDIS_PREFIX: `e2e-nginx-${randomBytes(4).toString("hex")}:`,
    GENUI_JWKS_URL: `${issuer}jwks.json`,
    GENUI_JWT_ISSUER: issuer,
    GENUI_SANDBOX_ORIGIN: `http://${sandboxHost}`,
    GENUI_APP_ORIGIN: `http://${appHost}`,
  };
  for (const name of ["a", "b"]) {
    const [p, sp] = [await freePort(), await freePort()];
    instances.push(await startAdapter(yaml, { env, listen: `127.0.0.1:${p}`, sandboxListen: `127.0.0.1:${sp}` }));
    addr[name] = { app: `127.0.0.1:${p}`, sandbox: `127.0.0.1:${sp}` };
  }

  const dir = mkdtempSync(join(tmpdir(), "nginx-e2e-"));
  chmodSync(dir, 0o777);
  const conf = readFileSync(join(deploy, "nginx", "genui-adapter.conf"), "utf8")
    .replaceAll("127.0.0.1:8080", addr.a.app).replaceAll("127.0.0.1:8090", addr.b.app)
    .replaceAll("127.0.0.1:8081", addr.a.sandbox).replaceAll("127.0.0.1:8091", addr.b.sandbox)
    .replaceAll("listen 80;", `listen 127.0.0.1:${port};`);
  writeFileSync(join(dir, "genui-adapter.conf"), conf);
  // Test-only: which instance answered, as a response header.
  writeFileSync(join(dir, "nginx.conf"), nginxMain(dir, join(dir, "genui-adapter.conf"), "add_header X-Upstream $upstream_addr always;"));
  nginx = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: ["ignore", "inherit", "inherit"] });
  await waitPort(port, "nginx");
});

after(async () => {
  nginx?.kill("SIGTERM");
  await Promise.all(instances.map((i) => i.stop()));
  idp?.server.close();
});

// request sends one request through nginx; for SSE it collects the frames
// and comments with their arrival times. until(frames) may end it early.
function request(path, { method = "GET", host = appHost, body, headers = {}, until } = {}) {
  return new Promise((resolveReq, reject) => {
    const start = Date.now();
    const req = http.request({ host: "127.0.0.1", port, path, method, headers: { Host: host, authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}), ...headers } }, (res) => {
      const out = { status: res.statusCode, headers: res.headers, frames: [], comments: [], text: "" };
      let buf = "";
      const done = () => resolveReq(out);
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        out.text += chunk;
        buf += chunk;
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f = { at: Date.now() - start };
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) out.comments.push({ at: f.at, text: line });
            else if (line.startsWith("id:")) f.id = line.slice(3).trim();
            else if (line.startsWith("data:")) f.data = JSON.parse(line.slice(5));
          }
          if (f.data) out.frames.push(f);
          if (until && until(out.frames)) {
            req.destroy();
            return done();
          }
        }
      });
      res.on("end", done);
      res.on("error", done);
    });
    req.on("error", (e) => (e.code === "ECONNRESET" ? null : reject(e)));
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const runBody = (thread, run, text) => ({ threadId: thread, runId: run, messages: [{ id: `u-${run}`, role: "user", content: text }] });
const upstreamName = (r) => (r.headers["x-upstream"] === addr.a.app ? "a" : r.headers["x-upstream"] === addr.b.app ? "b" : r.headers["x-upstream"]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("SSE through nginx: events arrive as they happen and heartbeats pass", async () => {
  const r = await request("/agents/slow/run", { method: "POST", body: runBody("t-sse", "r-sse", "hi") });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.frames.at(-1).data.type, "RUN_FINISHED");
  const first = r.frames[0].at, last = r.frames.at(-1).at;
  assert.ok(last - first >= 1500, `the run took ${last - first} ms; it should be paced`);
  // Unbuffered: events are spread over the run, not delivered at its end.
  const early = r.frames.filter((f) => f.at < first + (last - first) / 2).length;
  assert.ok(early >= 3, `only ${early} of ${r.frames.length} events arrived in the first half of the run`);
  assert.ok(r.comments.some((c) => c.text.includes("keep-alive")), `no heartbeat came through: ${JSON.stringify(r.comments)}`);
});

test("auth through nginx: no token or an expired one is refused", async () => {
  const none = await request("/agents/slow/run", { method: "POST", body: runBody("t-x", "r-x", "hi"), headers: { authorization: "" } });
  assert.equal(none.status, 401);
  const expired = await request("/agents/slow/run", { method: "POST", body: runBody("t-x", "r-x", "hi"), headers: { authorization: `Bearer ${idp.token(`http://127.0.0.1:${idp.server.address().port}/`, "carol", { expiresIn: -600 })}` } });
  assert.equal(expired.status, 401);
  assert.match(expired.text, /expired/);
});

// until sends requests (idle connections: least_conn takes turns) until
// one lands on instance want.
async function on(want, send) {
  for (let i = 0; i < 8; i++) {
    const r = await send();
    if (upstreamName(r) === want) return r;
    await sleep(50);
  }
  throw new Error(`no request reached instance ${want}`);
}
const probeUntilServedBy = async (name) => on(name, () => request("/healthz"));

test("a run started through one instance is resumed and cancelled through the other", async () => {
  const run = "r-cross-" + randomBytes(3).toString("hex");
  const started = await request("/agents/slow/run", { method: "POST", body: runBody("t-cross", run, "hi"), until: (fs) => fs.length >= 3 });
  assert.equal(started.status, 200);
  const owner = upstreamName(started);
  const other = owner === "a" ? "b" : "a";
  const lastId = started.frames.at(-1).id;
  assert.ok(lastId, "frames carry ids");
  await sleep(100); // nginx sees the client go

  // Resume on the other instance, from the last id seen.
  await probeUntilServedBy(owner);
  const resumed = await request(`/runs/${run}/events`, { headers: { "last-event-id": lastId }, until: (fs) => fs.length >= 2 });
  assert.equal(upstreamName(resumed), other, "the resume went to the other instance");
  assert.equal(resumed.status, 200, resumed.text);
  const seen = [...started.frames, ...resumed.frames].map((f) => f.id);
  assert.equal(new Set(seen).size, seen.length, `an event came twice: ${seen}`);
  assert.ok(BigInt(resumed.frames[0].id) > BigInt(lastId) || resumed.frames[0].id !== lastId);
  await sleep(100);

  // Cancel on the other instance.
  await probeUntilServedBy(owner);
  const cancelled = await request(`/runs/${run}/cancel`, { method: "POST", headers: { origin: `http://${appHost}` } });
  assert.equal(upstreamName(cancelled), other, "the cancel went to the other instance");
  assert.ok(cancelled.status < 300, `cancel: ${cancelled.status} ${cancelled.text}`);

  // The run ends cancelled; the end reads the same from either instance.
  const end = await request(`/runs/${run}/events`, { headers: { "last-event-id": resumed.frames.at(-1).id } });
  const last = end.frames.at(-1).data;
  assert.equal(last.type, "RUN_ERROR", JSON.stringify(last));
  assert.match(JSON.stringify(last), /cancel/i);
});

test("the sandbox is served on its own server name only", async () => {
  const r = await request("/agents/cards/run", { method: "POST", body: runBody("t-card", "r-card-" + randomBytes(3).toString("hex"), "app") });
  const card = r.frames.map((f) => f.data).find((e) => e.type === "ACTIVITY_SNAPSHOT" && e.activityType === "mcp-apps")?.content;
  assert.ok(card?.serverHash, `no card in ${r.frames.map((f) => f.data.type)}`);
  // The ticket is asked of both instances (the card's capability verifies
  // anywhere).
  for (const inst of ["a", "b"]) {
    await probeUntilServedBy(inst === "a" ? "b" : "a");
    const t = await request("/mcp-apps/sandbox", { method: "POST", body: { serverHash: card.serverHash, serverId: card.serverId, uri: card.resourceUri, hostOrigin: `http://${appHost}` } });
    assert.equal(upstreamName(t), inst);
    assert.equal(t.status, 200, t.text);
    const url = new URL(JSON.parse(t.text).url);
    assert.equal(url.host, sandboxHost);
    const page = await request(url.pathname + url.search, { host: sandboxHost });
    assert.equal(page.status, 200, page.text);
    assert.match(page.headers["content-security-policy"] ?? "", /default-src/);
    assert.match(page.text, new RegExp(`http://${appHost.replace(".", "\\.")}`));
    // Not on the app's name; nothing else on the sandbox's.
    assert.equal((await request(url.pathname + url.search)).status, 404);
  }
  assert.equal((await request("/", { host: sandboxHost })).status, 404);
  assert.equal((await request("/healthz", { host: sandboxHost })).status, 404);
  // A ticket for an origin the deployment does not serve is refused.
  const forged = await request("/mcp-apps/sandbox", { method: "POST", body: { serverHash: card.serverHash, serverId: card.serverId, uri: card.resourceUri, hostOrigin: "http://evil.example" } });
  assert.equal(forged.status, 403, forged.text);
  assert.match(forged.text, /host_origin_not_allowed/);
});
