// A stock CopilotKit v2 page; only runtimeUrl points at genui-adapter.
// Query: ?runtime=<url> (required), ?single=1 (single-route mode),
// ?thread=<id> (reopen a thread), ?agent=<id>.
import React from "react";
import { createRoot } from "react-dom/client";
import { CopilotKitProvider, CopilotChat } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";

const q = new URLSearchParams(location.search);
window.__cpkErrors = [];
function App() {
  return (
    <CopilotKitProvider runtimeUrl={q.get("runtime")} useSingleEndpoint={q.get("single") === "1"} enableInspector={false}
      onError={(e) => window.__cpkErrors.push(String(e?.error?.message ?? e?.message ?? e?.code ?? JSON.stringify(e)))}>
      <div style={{ height: "100vh" }}>
        <CopilotChat agentId={q.get("agent") || "default"} threadId={q.get("thread") || undefined} />
      </div>
    </CopilotKitProvider>
  );
}
createRoot(document.getElementById("root")).render(<App />);
