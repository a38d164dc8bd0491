// Loopback ports for the processes the e2e files start.
import net from "node:net";

// freePort is a loopback port nothing listens on (at the time of asking).
export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

// waitPort waits until something accepts connections on the loopback
// port (up to about 20 s), else throws naming what did not start.
export async function waitPort(port, what = `anything on ${port}`) {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((r) => net.connect(port, "127.0.0.1").on("connect", function () { this.destroy(); r(true); }).on("error", () => r(false)));
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start: nothing listens on ${port}`);
}
