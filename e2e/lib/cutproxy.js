// A TCP proxy that cuts each client connection after `every` SSE frames
// (plus `extra` bytes of the next one) went to the client; frames end
// with a blank line, LF or CRLF. With `limit`, it cuts only LangGraph
// run streams (POST /threads/{id}/runs/stream, frames counted from the
// request), only as many as allow(n) allows (none until then), and
// passes everything else through.
import net from "node:net";

export async function startCutProxy(targetPort, every, extra = 0, limit = false) {
  let cuts = 0;
  let allowed = limit ? 0 : Infinity;
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    client.pipe(upstream);
    let frames = 0;
    let inBody = false;
    let head = Buffer.alloc(0);
    let sentExtra = 0;
    let runStream = !limit;
    const cutting = () => cuts < allowed && runStream;
    if (limit) {
      // Requests on a kept-alive connection come one after another.
      client.on("data", (chunk) => {
        const line = /^([A-Z]+) (\S+) HTTP\//.exec(chunk.toString("latin1", 0, 512));
        if (!line) return;
        frames = 0;
        inBody = false;
        head = Buffer.alloc(0);
        sentExtra = 0;
        runStream = line[1] === "POST" && /^\/threads\/[^/]+\/runs\/stream$/.test(line[2]);
      });
    }
    upstream.on("data", (chunk) => {
      if (!inBody) {
        head = Buffer.concat([head, chunk]);
        const i = head.indexOf("\r\n\r\n");
        client.write(chunk);
        if (i < 0) return;
        inBody = true;
        frames += count(head.subarray(i + 4));
        if (frames >= every && cutting()) cut();
        return;
      }
      for (let i = 0; i < chunk.length; i++) {
        if (frames >= every && cutting()) {
          if (sentExtra >= extra) {
            client.write(chunk.subarray(0, i));
            return cut();
          }
          sentExtra++;
          continue;
        }
        if (frameEnd(chunk, i)) frames++;
      }
      client.write(chunk);
    });
    const cut = () => {
      cuts++;
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: server.address().port,
    cuts: () => cuts,
    // allow lets n more connections be cut, after `at` frames if given.
    allow: (n, at = every) => {
      allowed = cuts + n;
      every = at;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

function count(buf) {
  let n = 0;
  for (let i = 1; i < buf.length; i++) if (frameEnd(buf, i)) n++;
  return n;
}

// frameEnd: buf[i] ends an SSE frame ("\n\n", or "\r\n\r\n" as the
// Python LangGraph server writes them).
function frameEnd(buf, i) {
  if (buf[i] !== 10 || i < 1) return false;
  return buf[i - 1] === 10 || (i > 2 && buf[i - 1] === 13 && buf[i - 2] === 10 && buf[i - 3] === 13);
}
