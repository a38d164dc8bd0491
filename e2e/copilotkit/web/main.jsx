// A stock CopilotKit v2 page; only runtimeUrl points at genui-adapter.
// Query: ?runtime=<url> (required), ?single=1 (single-route mode),
// ?thread=<id> (reopen a thread), ?agent=<id>, ?token=<bearer token>
// (the principal), ?theme=dark, ?threads=1 (a thread list beside the
// chat, from CopilotKit's useThreads hook), ?suggest=1 (suggestion chips
// from useConfigureSuggestions).
import React, { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { CopilotKitProvider, CopilotChat, useAgent, useConfigureSuggestions, useInterrupt, useThreads } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import "./page.css";

const q = new URLSearchParams(location.search);
const agentId = q.get("agent") || "default";
window.__cpkErrors = [];
if (q.get("theme") === "dark") document.documentElement.classList.add("dark");

// A LangGraph interrupt answered in the page (the stock hook).
function Approvals() {
  useInterrupt({
    agentId,
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

// Suggestions: CopilotKit asks the agent for them (agent/:id/suggest when
// /info says suggestions: true) and shows them as chips in the chat.
function Suggestions() {
  useConfigureSuggestions({
    instructions: "Suggest what the user could ask next.",
    available: "always",
    providerAgentId: agentId,
    consumerAgentId: agentId,
  });
  return null;
}

const when = (iso) => {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
};

// ThreadList is the principal's threads from CopilotKit's useThreads
// (GET /threads, DELETE /threads/{id}): pick one to reopen it in the chat,
// delete one, start a new one. The list reloads when a run ends.
function ThreadList({ active, onSelect, onNew }) {
  const { threads, isLoading, error, deleteThread, refetchThreads, hasMoreThreads, fetchMoreThreads } = useThreads({ agentId, includeArchived: false, limit: 20 });
  const { agent } = useAgent({ agentId });
  useEffect(() => {
    const sub = agent?.subscribe({ onRunFinalized: () => refetchThreads() });
    return () => sub?.unsubscribe();
  }, [agent, refetchThreads]);
  const remove = async (id) => {
    await deleteThread(id);
    if (id === active) onNew();
  };
  return (
    <nav className="threads" data-testid="thread-list" aria-label="Threads">
      <div className="threads-head">
        <h2>Threads</h2>
        <button type="button" className="threads-new" onClick={onNew}>New</button>
      </div>
      {error && <p className="threads-error" role="alert">{error.message}</p>}
      {isLoading && threads.length === 0 && <p className="threads-empty">Loading…</p>}
      {!isLoading && !error && threads.length === 0 && <p className="threads-empty">No threads yet</p>}
      <ul>
        {threads.map((t) => (
          <li key={t.id} data-thread={t.id} className={t.id === active ? "active" : ""}>
            <button type="button" className="thread-open" aria-current={t.id === active ? "true" : undefined} onClick={() => onSelect(t.id)}>
              <span className="thread-name">{t.name ?? "Untitled"}</span>
              <span className="thread-time">{when(t.lastRunAt ?? t.updatedAt)}</span>
            </button>
            <button type="button" className="thread-delete" aria-label={`Delete ${t.name ?? t.id}`} title="Delete" onClick={() => remove(t.id)}>×</button>
          </li>
        ))}
      </ul>
      {hasMoreThreads && <button type="button" className="threads-more" onClick={fetchMoreThreads}>Load more</button>}
    </nav>
  );
}

function App() {
  const withThreads = q.get("threads") === "1";
  const [thread, setThread] = useState(q.get("thread") || (withThreads ? crypto.randomUUID() : undefined));
  const token = q.get("token");
  const chat = <CopilotChat agentId={agentId} threadId={thread} />;
  return (
    <CopilotKitProvider runtimeUrl={q.get("runtime")} useSingleEndpoint={q.get("single") === "1"} enableInspector={false}
      headers={token ? { Authorization: `Bearer ${token}` } : undefined}
      onError={(e) => window.__cpkErrors.push(String(e?.error?.message ?? e?.message ?? e?.code ?? JSON.stringify(e)))}>
      <Approvals />
      {q.get("suggest") === "1" && <Suggestions />}
      {withThreads ? (
        <div className="layout">
          <ThreadList active={thread} onSelect={setThread} onNew={() => setThread(crypto.randomUUID())} />
          <main className="chat" data-testid="chat-pane">{chat}</main>
        </div>
      ) : (
        <div style={{ height: "100vh" }}>{chat}</div>
      )}
    </CopilotKitProvider>
  );
}
createRoot(document.getElementById("root")).render(<App />);
