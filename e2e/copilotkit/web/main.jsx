// A stock CopilotKit v2 page; only runtimeUrl points at genui-adapter.
// Query: ?runtime=<url> (required), ?single=1 (single-route mode),
// ?thread=<id> (reopen a thread), ?agent=<id>.
import React from "react";
import { createRoot } from "react-dom/client";
import { CopilotKitProvider, CopilotChat, useInterrupt } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";

const q = new URLSearchParams(location.search);
window.__cpkErrors = [];

// A LangGraph interrupt answered in the page (the stock hook).
function Approvals() {
  useInterrupt({
    agentId: q.get("agent") || "default",
    render: ({ interrupt, event, resolve }) => {
      const v = interrupt?.metadata?.value ?? event?.value;
      const question = typeof v === "string" ? safeParse(v)?.question ?? v : v?.question;
      return (
        <div data-testid="interrupt">
          <p>{String(question ?? "Approve?")}</p>
          <button onClick={() => resolve({ approved: true })}>Approve refund</button>
        </div>
      );
    },
  });
  return null;
}
function safeParse(s) {
  try { return JSON.parse(s); } catch { return null; }
}
function App() {
  return (
    <CopilotKitProvider runtimeUrl={q.get("runtime")} useSingleEndpoint={q.get("single") === "1"} enableInspector={false}
      onError={(e) => window.__cpkErrors.push(String(e?.error?.message ?? e?.message ?? e?.code ?? JSON.stringify(e)))}>
      <Approvals />
      <div style={{ height: "100vh" }}>
        <CopilotChat agentId={q.get("agent") || "default"} threadId={q.get("thread") || undefined} />
      </div>
    </CopilotKitProvider>
  );
}
createRoot(document.getElementById("root")).render(<App />);
