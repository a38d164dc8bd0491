// Starts the real genui-adapter binary for a test, with a generated config.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

// binary builds the adapter once per process (or uses GENUI_BIN) exactly
// as the Dockerfile does: a static binary (CGO_ENABLED=0, -trimpath,
// stripped). Every e2e suite runs it from an empty directory, so they all
// show that the binary is self-contained (playground, A2UI renderer bundle,
// icon font, sandbox page and host bridge embedded).
let built;
export function binary() {
  if (process.env.GENUI_BIN) return process.env.GENUI_BIN;
  if (built) return built;
  const out = join(mkdtempSync(join(tmpdir(), "genui-bin-")), "genui-adapter");
  const r = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/genui-adapter"], {
    cwd: root, stdio: "inherit", env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (r.status !== 0 || !existsSync(out)) throw new Error("go build failed");
  built = out;
  return out;
}

// startAdapter writes yaml to a temp file, starts the binary on a free port
// and resolves with {url, stop, logs()} once it prints its address.
// listen and sandboxListen pick the addresses (default: free ports);
// logLevel is the adapter's (default warn).
export async function startAdapter(yaml, { env = {}, listen = "127.0.0.1:0", sandboxListen = "127.0.0.1:0", logLevel = "warn" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "genui-cfg-"));
  const cfg = join(dir, "genui-adapter.yaml");
  writeFileSync(cfg, yaml);
  const child = spawn(binary(), ["--config", cfg, "--listen", listen, "--sandbox-listen", sandboxListen, "--log-level", logLevel], {
    env: { ...process.env, ...env },
    cwd: mkdtempSync(join(tmpdir(), "genui-cwd-")), // empty: nothing read from the checkout
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error("adapter did not start:\n" + stdout + stderr)), 20000);
    child.stdout.on("data", (d) => {
      stdout += d;
      const m = stdout.match(/listening on (http:\/\/[^\s]+)/);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`adapter exited ${code}:\n${stdout}${stderr}`)));
  });
  const sandbox = (stdout.match(/sandbox origin: (http:\/\/\S+)/) || [])[1];
  return {
    url,
    sandbox,
    child,
    logs: () => stdout + stderr,
    stop: () =>
      new Promise((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r(); // exited, or killed
        child.on("exit", () => r());
        child.kill("SIGTERM");
      }),
  };
}
