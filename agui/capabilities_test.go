package agui

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestAgentCapabilitiesGolden: every field of AgentCapabilities set
// encodes to testdata/capabilities.json, written by hand from
// @ag-ui/core 1.0.0's AgentCapabilities type (its key names), and the
// file decodes back to the same value.
func TestAgentCapabilitiesGolden(t *testing.T) {
	c := AgentCapabilities{
		Identity: &IdentityCapabilities{Name: "orders", Type: "langgraph", Description: "Order desk", Version: "1.2.0", Provider: "ACME",
			DocumentationURL: "https://example.com/docs", Metadata: JSON(`{"team":"ops"}`)},
		Transport: &TransportCapabilities{Streaming: true, Websocket: true, HTTPBinary: true, PushNotifications: true, Resumable: true},
		Tools: &ToolsCapabilities{Supported: true, Items: []Tool{{Name: "lookup", Description: "Look an order up", Parameters: JSON(`{"type":"object"}`)}},
			ParallelCalls: true, ClientProvided: true},
		Output:     &OutputCapabilities{StructuredOutput: true, SupportedMimeTypes: []string{"text/plain", "application/a2ui+json"}},
		State:      &StateCapabilities{Snapshots: true, Deltas: true, Memory: true, PersistentState: true},
		MultiAgent: &MultiAgentCapabilities{Supported: true, Delegation: true, Handoffs: true, Subagents: []SubagentInfo{{Name: "billing", Description: "Invoices"}}},
		Reasoning:  &ReasoningCapabilities{Supported: true, Streaming: true, Encrypted: true},
		Multimodal: &MultimodalCapabilities{
			Input:  &MultimodalInputCapabilities{Image: true, Audio: true, Video: true, PDF: true, File: true},
			Output: &MultimodalOutputCapabilities{Image: true, Audio: true},
		},
		Execution:      &ExecutionCapabilities{CodeExecution: true, Sandboxed: true, MaxIterations: 5, MaxExecutionTime: 30000},
		HumanInTheLoop: &HumanInTheLoopCapabilities{Supported: true, Approvals: true, Interventions: true, Feedback: true, Interrupts: true, ApproveWithEdits: true},
		Custom:         map[string]any{"genui-adapter": map[string]any{"a2ui": true}},
	}
	golden, err := os.ReadFile("testdata/capabilities.json")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, golden); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("AgentCapabilities encodes to\n%s\nwant (testdata/capabilities.json)\n%s", got, want.Bytes())
	}
	var back AgentCapabilities
	if err := json.Unmarshal(golden, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(again, want.Bytes()) {
		t.Errorf("the golden file decodes and encodes to\n%s", again)
	}
	// Nothing declared is an empty object.
	if b, _ := json.Marshal(AgentCapabilities{}); string(b) != "{}" {
		t.Errorf("empty capabilities = %s", b)
	}
}
