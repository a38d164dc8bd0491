// ResumableHttpAgent: an @ag-ui/client HttpAgent that survives dropped
// connections by resuming through genui-adapter's GET /runs/{runId}/events
// with the last event id it saw. Swap one class and keep everything else:
//
//   import { HttpAgent } from "@ag-ui/client";
//   import { Observable } from "rxjs";
//   import { withResume } from "./resumable-http-agent.mjs";
//   const ResumableHttpAgent = withResume(HttpAgent, Observable);
//   const agent = new ResumableHttpAgent({ url: "http://localhost:8080/agents/demo/run" });
//   await agent.runAgent();
//
// It works with @ag-ui/client 0.0.57, 0.0.59 and 1.0.0 (the e2e suite runs
// all three). Options: maxRetries (default 10), retryDelayMs (default: the
// server's "retry:" hint, else 1000), resumeUrl(runId) (default: derived
// from the agent url).

export function withResume(HttpAgent, Observable) {
  return class ResumableHttpAgent extends HttpAgent {
    constructor(config) {
      super(config);
      this.maxRetries = config.maxRetries ?? 10;
      this.retryDelayMs = config.retryDelayMs;
      this.resumeUrl = config.resumeUrl ?? ((runId) => this.url.replace(/\/agents\/[^/]+\/run\/?$/, "") + `/runs/${encodeURIComponent(runId)}/events`);
    }

    run(input) {
      return new Observable((subscriber) => {
        const controller = this.abortController ?? new AbortController();
        let lastId = null; // the last event id seen
        let started = false; // the run was accepted: resume, never POST again
        let retryMs = this.retryDelayMs ?? 1000;
        let done = false;
        const attempt = async (n) => {
          const resume = started || lastId !== null;
          const init = resume
            ? { method: "GET", headers: { ...this.headers, Accept: "text/event-stream", "Last-Event-ID": lastId ?? "0" }, signal: controller.signal }
            : { ...this.requestInit(input), signal: controller.signal };
          const url = resume ? this.resumeUrl(input.runId) : this.url;
          let res;
          try {
            res = await (this.fetch ?? fetch)(url, init);
          } catch (e) {
            return retry(n, e);
          }
          if (!res.ok) {
            const body = await res.text().catch(() => "");
            // A retried POST whose first attempt did reach the server.
            if (!resume && n > 0 && res.status === 409 && body.includes('"run_exists"')) {
              started = true;
              return attempt(n + 1);
            }
            // Before the first event, an HTTP error is the caller's problem;
            // a resume that is refused (410 gap, 404 expired) is final too.
            throw Object.assign(new Error(`HTTP ${res.status}: ${body}`), { status: res.status });
          }
          started = true;
          try {
            await read(res.body);
          } catch (e) {
            if (controller.signal.aborted) throw e;
            return retry(n, e);
          }
          if (!done) return retry(n, new Error("stream ended before the run did"));
        };
        const retry = async (n, err) => {
          if (controller.signal.aborted || n >= this.maxRetries) throw err;
          await new Promise((r) => setTimeout(r, retryMs));
          return attempt(n + 1);
        };
        const read = async (body) => {
          const reader = body.getReader();
          const decoder = new TextDecoder();
          let buf = "";
          for (;;) {
            const { value, done: eof } = await reader.read();
            if (eof) return;
            buf += decoder.decode(value, { stream: true });
            let i;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              const block = buf.slice(0, i);
              buf = buf.slice(i + 2);
              let id = null;
              const data = [];
              for (const line of block.split("\n")) {
                if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
                else if (line.startsWith("id:")) id = line.slice(3).trim();
                else if (line.startsWith("retry:")) retryMs = this.retryDelayMs ?? (Number(line.slice(6)) || retryMs);
              }
              if (data.length === 0) continue;
              const event = JSON.parse(data.join("\n"));
              if (id !== null) lastId = id;
              subscriber.next(event);
              if (event.type === "RUN_FINISHED" || event.type === "RUN_ERROR") {
                done = true;
                reader.cancel().catch(() => {});
                return;
              }
            }
          }
        };
        attempt(0).then(
          () => subscriber.complete(),
          (e) => subscriber.error(e),
        );
        return () => controller.abort();
      });
    }
  };
}
