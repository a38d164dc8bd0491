// Builds the playground's third-party bundle (the official A2UI v0.9
// renderer, @a2ui/lit 0.11.0 on @a2ui/web_core 0.11.0, exact versions from
// e2e/package-lock.json) into playground-vendor/a2ui.js, which the adapter
// serves at /vendor/a2ui.js. The output is never committed.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, "..", "playground-vendor", "a2ui.js");
await build({
  stdin: {
    contents: `export { MessageProcessor } from "@a2ui/web_core/v0_9";\nexport { A2uiSurface, basicCatalog } from "@a2ui/lit/v0_9";\n`,
    resolveDir: here,
    loader: "js",
  },
  bundle: true,
  format: "esm",
  minify: true,
  outfile,
  logLevel: "error",
});
console.log("built " + outfile);
