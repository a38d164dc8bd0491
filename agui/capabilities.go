package agui

// AgentCapabilities is AG-UI 1.0's typed snapshot of what an agent
// supports (@ag-ui/core 1.0.0, AbstractAgent.getCapabilities()). Every
// field is optional and an omitted one means "not declared" (unknown),
// not "unsupported"; the adapter declares only what it knows to be true,
// so the flags here are plain booleans omitted when false.
type AgentCapabilities struct {
	Identity       *IdentityCapabilities       `json:"identity,omitempty"`
	Transport      *TransportCapabilities      `json:"transport,omitempty"`
	Tools          *ToolsCapabilities          `json:"tools,omitempty"`
	Output         *OutputCapabilities         `json:"output,omitempty"`
	State          *StateCapabilities          `json:"state,omitempty"`
	MultiAgent     *MultiAgentCapabilities     `json:"multiAgent,omitempty"`
	Reasoning      *ReasoningCapabilities      `json:"reasoning,omitempty"`
	Multimodal     *MultimodalCapabilities     `json:"multimodal,omitempty"`
	Execution      *ExecutionCapabilities      `json:"execution,omitempty"`
	HumanInTheLoop *HumanInTheLoopCapabilities `json:"humanInTheLoop,omitempty"`
	// Custom holds integration-specific capabilities, open by key.
	Custom map[string]any `json:"custom,omitempty"`
}

// IdentityCapabilities is who the agent is.
type IdentityCapabilities struct {
	Name             string `json:"name,omitempty"`
	Type             string `json:"type,omitempty"` // the framework or platform behind it
	Description      string `json:"description,omitempty"`
	Version          string `json:"version,omitempty"`
	Provider         string `json:"provider,omitempty"`
	DocumentationURL string `json:"documentationUrl,omitempty"`
	Metadata         JSON   `json:"metadata,omitempty"`
}

// TransportCapabilities is how the agent's runs can be reached.
type TransportCapabilities struct {
	Streaming         bool `json:"streaming,omitempty"`
	Websocket         bool `json:"websocket,omitempty"`
	HTTPBinary        bool `json:"httpBinary,omitempty"`
	PushNotifications bool `json:"pushNotifications,omitempty"`
	// Resumable: an interrupted stream can be resumed from its sequence
	// numbers (SSE ids).
	Resumable bool `json:"resumable,omitempty"`
}

// ToolsCapabilities is the agent's tool calling: Items are the tools it
// provides itself, distinct from the client's RunAgentInput.tools.
type ToolsCapabilities struct {
	Supported      bool   `json:"supported,omitempty"`
	Items          []Tool `json:"items,omitempty"`
	ParallelCalls  bool   `json:"parallelCalls,omitempty"`
	ClientProvided bool   `json:"clientProvided,omitempty"`
}

// OutputCapabilities is the agent's output formats.
type OutputCapabilities struct {
	StructuredOutput   bool     `json:"structuredOutput,omitempty"`
	SupportedMimeTypes []string `json:"supportedMimeTypes,omitempty"`
}

// StateCapabilities is the agent's state and memory.
type StateCapabilities struct {
	Snapshots       bool `json:"snapshots,omitempty"`
	Deltas          bool `json:"deltas,omitempty"`
	Memory          bool `json:"memory,omitempty"`
	PersistentState bool `json:"persistentState,omitempty"`
}

// MultiAgentCapabilities is the agent's coordination with other agents.
type MultiAgentCapabilities struct {
	Supported  bool           `json:"supported,omitempty"`
	Delegation bool           `json:"delegation,omitempty"`
	Handoffs   bool           `json:"handoffs,omitempty"`
	Subagents  []SubagentInfo `json:"subagents,omitempty"`
}

// SubagentInfo is a subagent an agent can invoke.
type SubagentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ReasoningCapabilities is the agent's visible reasoning.
type ReasoningCapabilities struct {
	Supported bool `json:"supported,omitempty"`
	Streaming bool `json:"streaming,omitempty"`
	Encrypted bool `json:"encrypted,omitempty"`
}

// MultimodalCapabilities is what the agent accepts and produces besides
// text.
type MultimodalCapabilities struct {
	Input  *MultimodalInputCapabilities  `json:"input,omitempty"`
	Output *MultimodalOutputCapabilities `json:"output,omitempty"`
}

// MultimodalInputCapabilities is the input modalities.
type MultimodalInputCapabilities struct {
	Image bool `json:"image,omitempty"`
	Audio bool `json:"audio,omitempty"`
	Video bool `json:"video,omitempty"`
	PDF   bool `json:"pdf,omitempty"`
	File  bool `json:"file,omitempty"`
}

// MultimodalOutputCapabilities is the output modalities.
type MultimodalOutputCapabilities struct {
	Image bool `json:"image,omitempty"`
	Audio bool `json:"audio,omitempty"`
}

// ExecutionCapabilities is the agent's execution limits.
type ExecutionCapabilities struct {
	CodeExecution bool `json:"codeExecution,omitempty"`
	Sandboxed     bool `json:"sandboxed,omitempty"`
	MaxIterations int  `json:"maxIterations,omitempty"`
	// MaxExecutionTime is in milliseconds.
	MaxExecutionTime int64 `json:"maxExecutionTime,omitempty"`
}

// HumanInTheLoopCapabilities is the agent's pauses for people.
type HumanInTheLoopCapabilities struct {
	Supported        bool `json:"supported,omitempty"`
	Approvals        bool `json:"approvals,omitempty"`
	Interventions    bool `json:"interventions,omitempty"`
	Feedback         bool `json:"feedback,omitempty"`
	Interrupts       bool `json:"interrupts,omitempty"`
	ApproveWithEdits bool `json:"approveWithEdits,omitempty"`
}
