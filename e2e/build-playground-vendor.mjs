// Builds the playground's third-party files into adapter/playground/vendor,
// which the binary embeds (go:embed) and serves at /vendor/: the official
// A2UI v0.9 renderer (@a2ui/lit and @a2ui/web_core, with @a2ui/markdown-it
// for Text with markdown) as one ES module, and the Material Icons font the
// renderer's Icon uses. Exact versions come from e2e/package-lock.json.
// The output is committed; CI rebuilds it and fails if the bytes differ
// (`make vendor-check`).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, "..", "adapter", "playground", "vendor");
mkdirSync(outdir, { recursive: true });
await build({
  stdin: {
    contents: [
      `export { MessageProcessor } from "@a2ui/web_core/v0_9";`,
      `export { A2uiSurface, basicCatalog, Context } from "@a2ui/lit/v0_9";`,
      `export { renderMarkdown } from "@a2ui/markdown-it";`,
      `export { ContextProvider } from "@lit/context";`,
    ].join("\n"),
    resolveDir: here,
    loader: "js",
  },
  bundle: true,
  format: "esm",
  minify: true,
  legalComments: "none",
  outfile: join(outdir, "a2ui.js"),
  logLevel: "error",
});
copyFileSync(join(here, "node_modules", "material-icons", "iconfont", "material-icons.woff2"), join(outdir, "material-icons.woff2"));
console.log("built " + outdir);
