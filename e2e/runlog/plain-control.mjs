// Runs a plain HttpAgent of version argv[2] against argv[3] and prints
// whether it failed. A separate process: a cut connection leaves an
// unhandled fetch rejection inside the client, which would otherwise fail
// the test file that observes it.
import { runClient } from "../lib/clients.js";
process.on("unhandledRejection", () => {});
const r = await runClient(process.argv[2], process.argv[3]);
console.log(JSON.stringify({ failed: r.failed.length > 0 || !!r.rejected }));
