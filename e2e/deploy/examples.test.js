// The deployment examples are checked with real validators: every
// Kubernetes document against the Kubernetes API schemas
// (kubernetes-models), the Caddyfile with `caddy validate`, the nginx
// config with `nginx -t`. Each check also refuses a broken copy, so it
// can fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { nginxMain } from "../lib/nginx.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const deploy = join(root, "examples", "deploy");

// The model class of a document: kubernetes-models/<group>/<version>/<Kind>.
async function modelOf(doc) {
  const [group, version] = doc.apiVersion.includes("/") ? doc.apiVersion.split("/") : [null, doc.apiVersion];
  const mod = await import(`kubernetes-models/${group ? group + "/" : ""}${version}/${doc.kind}`);
  return mod[doc.kind];
}

async function validateManifests(src) {
  const docs = parseAllDocuments(src);
  const errs = [];
  for (const d of docs) {
    if (d.errors.length) {
      errs.push(String(d.errors[0]));
      continue;
    }
    const obj = d.toJS();
    try {
      const Model = await modelOf(obj);
      new Model(obj).validate();
    } catch (e) {
      errs.push(`${obj.kind}/${obj.metadata?.name}: ${e.message}`);
    }
  }
  return { docs: docs.map((d) => d.toJS()), errs };
}

test("kubernetes: every document is valid against the Kubernetes API schemas", async () => {
  const src = readFileSync(join(deploy, "kubernetes", "genui-adapter.yaml"), "utf8");
  const { docs, errs } = await validateManifests(src);
  assert.deepEqual(errs, []);
  const kinds = docs.map((d) => d.kind).sort();
  assert.deepEqual(kinds, ["ConfigMap", "Deployment", "Deployment", "Ingress", "PodDisruptionBudget", "Secret", "Service", "Service"]);
  const app = docs.find((d) => d.kind === "Deployment" && d.metadata.name === "genui-adapter");
  assert.equal(app.spec.replicas, 2);
  const ing = docs.find((d) => d.kind === "Ingress");
  assert.equal(ing.metadata.annotations["nginx.ingress.kubernetes.io/proxy-buffering"], "off");
  assert.deepEqual(ing.spec.rules.map((r) => r.host), ["app.example.com", "sandbox.example.com"]);
  // The ConfigMap is the shared instance config, byte for byte.
  const cm = docs.find((d) => d.kind === "ConfigMap");
  assert.equal(cm.data["instance.yaml"], readFileSync(join(deploy, "instance.yaml"), "utf8"));

  // The validator can fail: a port named by a number-typed field.
  const broken = src.replace("- {name: http, containerPort: 8080}", "- {name: http, containerPort: eighty}");
  assert.notEqual(broken, src);
  const bad = await validateManifests(broken);
  assert.equal(bad.errs.length, 1, "a broken Deployment must be refused");
  assert.match(bad.errs[0], /Deployment\/genui-adapter/);
});

function caddyValidate(file) {
  const home = mkdtempSync(join(tmpdir(), "caddy-home-"));
  return spawnSync("caddy", ["validate", "--config", file, "--adapter", "caddyfile"], {
    encoding: "utf8", env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
  });
}

test("caddy: caddy validate accepts the Caddyfile", () => {
  const file = join(deploy, "caddy", "Caddyfile");
  const r = caddyValidate(file);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const broken = join(mkdtempSync(join(tmpdir(), "caddy-bad-")), "Caddyfile");
  writeFileSync(broken, readFileSync(file, "utf8").replace("lb_policy least_conn", "lb_policy fastest_please"));
  assert.notEqual(caddyValidate(broken).status, 0, "a broken Caddyfile must be refused");
});

function nginxTest(include) {
  const dir = mkdtempSync(join(tmpdir(), "nginx-t-"));
  writeFileSync(join(dir, "nginx.conf"), nginxMain(dir, include));
  return spawnSync("nginx", ["-t", "-q", "-p", dir, "-c", join(dir, "nginx.conf")], { encoding: "utf8" });
}

test("nginx: nginx -t accepts the example", () => {
  const file = join(deploy, "nginx", "genui-adapter.conf");
  const r = nginxTest(file);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const broken = join(mkdtempSync(join(tmpdir(), "nginx-bad-")), "bad.conf");
  writeFileSync(broken, readFileSync(file, "utf8").replace("proxy_buffering off;", "proxy_buffering sometimes;"));
  assert.notEqual(nginxTest(broken).status, 0, "a broken nginx config must be refused");
});
