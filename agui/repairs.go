package agui

// RepairInfo says why a repair was needed and which @ag-ui/client versions
// the unrepaired stream breaks (none: the repair only canonicalises, as
// expanding chunk events does). The doctor (genui-adapter check) prints it.
type RepairInfo struct {
	Why    string
	Breaks []string // client versions that fail, or nil
}

var (
	allClients = []string{"0.0.57", "0.0.59", "1.0.0", "1.0.4"}
	oldClients = []string{"0.0.57", "0.0.59"}
	newClients = []string{"1.0.0", "1.0.4"}
	// laterClients are those whose schemas know the 1.0 fields (metadata,
	// usage) 0.0.57 ignores.
	laterClients = []string{"0.0.59", "1.0.0", "1.0.4"}
)

var repairInfo = map[string]RepairInfo{
	RepairNullField:          {"an optional field was null; 0.0.57 rejects a null anywhere, the later clients in most fields (omit the field instead)", allClients},
	RepairFloatTimestamp:     {"timestamp was not an integer (milliseconds); 1.0.0 and 1.0.4 reject it", newClients},
	RepairBadTimestamp:       {"timestamp was not a number", allClients},
	RepairBadMetadata:        {"metadata was not an object; 0.0.57 ignores it", laterClients},
	RepairToolResultString:   {"TOOL_CALL_RESULT.content was not a string (JSON-encode structured results)", allClients},
	RepairBadOutcome:         {"RUN_FINISHED.outcome was malformed or of an unknown type", oldClients},
	RepairBadUsage:           {"usage was malformed; 0.0.57 ignores it", laterClients},
	RepairUnknownEvent:       {"an event type the client does not know; 0.0.5x aborts on it, 1.0.0 and 1.0.4 drop it with a warning", oldClients},
	RepairChunkExpanded:      {"*_CHUNK events were expanded into START/CONTENT/END (legal; canonical form)", nil},
	RepairThinkingToReason:   {"THINKING_* events (deprecated) were turned into REASONING_*", nil},
	RepairMissingRunStarted:  {"the first event was not RUN_STARTED: \"First event must be 'RUN_STARTED'\"", allClients},
	RepairRunIDs:             {"RUN_STARTED/RUN_FINISHED did not echo the request's threadId/runId", nil},
	RepairDuplicateStart:     {"RUN_STARTED arrived while the run was active", allClients},
	RepairOrphanEvent:        {"a CONTENT/ARGS/END event for a message, tool call or step that was not open", allClients},
	RepairClosedOpen:         {"RUN_FINISHED arrived while a message, tool call, step or reasoning was still open", allClients},
	RepairAfterTerminal:      {"events arrived after the run's terminal event: \"The run has already finished\"", allClients},
	RepairMissingTerminal:    {"the stream ended without RUN_FINISHED or RUN_ERROR: the client waits for ever (ag-ui #2300)", allClients},
	RepairUpstreamError:      {"the upstream stream failed (see the RUN_ERROR)", allClients},
	RepairSubagentFlattened:  {"SUBAGENT_* events; 0.0.57 (CopilotKit 1.69) aborts on them", []string{"0.0.57"}},
	RepairOutcomeDowngraded:  {"RUN_FINISHED.outcome other than a plain \"success\" or an \"interrupt\" (\"cancelled\", an unknown type); 0.0.5x rejects it", oldClients},
	RepairInvalidEvent:       {"a known event was malformed (a wrong field type, a missing required field)", allClients},
	RepairSynthesizedID:      {"a required id (messageId, toolCallId) was missing", allClients},
	RepairRoleDropped:        {"a message role outside the event's allowed set", allClients},
	RepairEmptyErrorMessage:  {"RUN_ERROR without a message", allClients},
	RepairRunInputDropped:    {"RUN_STARTED.input (1.0 only) was dropped for older clients", oldClients},
	RepairSubagentAttributed: {"subagentRunId on events (1.0 only); 0.0.57 rejects it", []string{"0.0.57"}},
}

// Explain returns what is known about a repair kind.
func Explain(kind string) RepairInfo {
	if i, ok := repairInfo[kind]; ok {
		return i
	}
	return RepairInfo{Why: "repair " + kind, Breaks: allClients}
}
