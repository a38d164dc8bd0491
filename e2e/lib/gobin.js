// Builds a Go main package of this repository once per process.
import { spawnSync } from "node:child_process";
import { mkdtempSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const built = new Map();

export function goBinary(pkg) {
  if (built.has(pkg)) return built.get(pkg);
  const out = join(mkdtempSync(join(tmpdir(), "genui-gobin-")), pkg.split("/").at(-1));
  const r = spawnSync("go", ["build", "-o", out, pkg], { cwd: root, stdio: "inherit" });
  if (r.status !== 0 || !existsSync(out)) throw new Error(`go build ${pkg} failed`);
  built.set(pkg, out);
  return out;
}
