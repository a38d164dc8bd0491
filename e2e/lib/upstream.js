// A scripted AG-UI upstream: an HTTP server whose routes stream frames built
// from the request body (so RUN_STARTED can echo the client's ids).
import http from "node:http";

export async function startUpstream(routes) {
  const requests = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const route = routes[req.url];
    if (!route) {
      res.writeHead(404).end("no route " + req.url);
      return;
    }
    const input = body ? JSON.parse(body) : {};
    requests.push({ url: req.url, headers: req.headers, input });
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    const frames = route(input);
    // A route may return frames, or an async iterable of them (paced).
    const list = frames && typeof frames[Symbol.asyncIterator] === "function" ? frames : Array.isArray(frames) ? frames : [frames];
    for await (const f of list) {
      if (!res.write(f)) await new Promise((r) => res.once("drain", r));
    }
    res.end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}
