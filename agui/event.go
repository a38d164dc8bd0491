package agui

import (
	"encoding/json"
)

// EventType is the "type" discriminator of an AG-UI event.
type EventType string

// The 31 event types of AG-UI 1.0, plus the five THINKING_* types removed in
// 1.0 that are still accepted on input.
const (
	TypeRunStarted              EventType = "RUN_STARTED"
	TypeRunFinished             EventType = "RUN_FINISHED"
	TypeRunError                EventType = "RUN_ERROR"
	TypeStepStarted             EventType = "STEP_STARTED"
	TypeStepFinished            EventType = "STEP_FINISHED"
	TypeTextMessageStart        EventType = "TEXT_MESSAGE_START"
	TypeTextMessageContent      EventType = "TEXT_MESSAGE_CONTENT"
	TypeTextMessageEnd          EventType = "TEXT_MESSAGE_END"
	TypeTextMessageChunk        EventType = "TEXT_MESSAGE_CHUNK"
	TypeToolCallStart           EventType = "TOOL_CALL_START"
	TypeToolCallArgs            EventType = "TOOL_CALL_ARGS"
	TypeToolCallEnd             EventType = "TOOL_CALL_END"
	TypeToolCallChunk           EventType = "TOOL_CALL_CHUNK"
	TypeToolCallResult          EventType = "TOOL_CALL_RESULT"
	TypeStateSnapshot           EventType = "STATE_SNAPSHOT"
	TypeStateDelta              EventType = "STATE_DELTA"
	TypeMessagesSnapshot        EventType = "MESSAGES_SNAPSHOT"
	TypeActivitySnapshot        EventType = "ACTIVITY_SNAPSHOT"
	TypeActivityDelta           EventType = "ACTIVITY_DELTA"
	TypeRaw                     EventType = "RAW"
	TypeCustom                  EventType = "CUSTOM"
	TypeReasoningStart          EventType = "REASONING_START"
	TypeReasoningMessageStart   EventType = "REASONING_MESSAGE_START"
	TypeReasoningMessageContent EventType = "REASONING_MESSAGE_CONTENT"
	TypeReasoningMessageEnd     EventType = "REASONING_MESSAGE_END"
	TypeReasoningMessageChunk   EventType = "REASONING_MESSAGE_CHUNK"
	TypeReasoningEnd            EventType = "REASONING_END"
	TypeReasoningEncryptedValue EventType = "REASONING_ENCRYPTED_VALUE"
	TypeSubagentStarted         EventType = "SUBAGENT_STARTED"
	TypeSubagentFinished        EventType = "SUBAGENT_FINISHED"
	TypeSubagentError           EventType = "SUBAGENT_ERROR"

	// Removed in 1.0; accepted on input and turned into REASONING_* by
	// Normalize.
	TypeThinkingStart              EventType = "THINKING_START"
	TypeThinkingEnd                EventType = "THINKING_END"
	TypeThinkingTextMessageStart   EventType = "THINKING_TEXT_MESSAGE_START"
	TypeThinkingTextMessageContent EventType = "THINKING_TEXT_MESSAGE_CONTENT"
	TypeThinkingTextMessageEnd     EventType = "THINKING_TEXT_MESSAGE_END"
)

// Event is one AG-UI event. It is a closed union: the implementations are the
// pointer types in this package (*RunStarted, *TextMessageContent, ...), plus
// *Unknown for a type this package does not know.
type Event interface {
	// Type is the event's discriminator.
	Type() EventType
	// MarshalJSON writes the event as compact JSON with "type" first and
	// optional fields omitted.
	MarshalJSON() ([]byte, error)
	base() *Base
}

// Base holds the fields every event may carry.
type Base struct {
	// Timestamp is milliseconds since the epoch; zero means absent.
	Timestamp int64 `json:"timestamp,omitempty"`
	// RawEvent is the upstream event this one was derived from, if any.
	RawEvent JSON `json:"rawEvent,omitempty"`
	// Metadata is a JSON object, or nil.
	Metadata JSON `json:"metadata,omitempty"`
	// SubagentRunID attributes the event to a subagent (AG-UI 1.0).
	SubagentRunID string `json:"subagentRunId,omitempty"`
}

func (b *Base) base() *Base { return b }

// marshalTyped marshals v (a struct type without its own MarshalJSON) and
// puts "type" first.
func marshalTyped(t EventType, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(t)+10)
	out = append(out, `{"type":"`...)
	out = append(out, t...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
		out = append(out, b[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// Interrupt is one reason a run paused for human input.
type Interrupt struct {
	ID             string `json:"id"`
	Reason         string `json:"reason"`
	Message        string `json:"message,omitempty"`
	ToolCallID     string `json:"toolCallId,omitempty"`
	ResponseSchema JSON   `json:"responseSchema,omitempty"`
	ExpiresAt      JSON   `json:"expiresAt,omitempty"`
	Metadata       JSON   `json:"metadata,omitempty"`
}

// Outcome says how a run finished. Type is "success", "interrupt" or (1.0
// only) "cancelled".
type Outcome struct {
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
}

// TokenUsage reports token counts for a model call.
type TokenUsage struct {
	Provider              string `json:"provider,omitempty"`
	Model                 string `json:"model,omitempty"`
	InputTokens           *int64 `json:"inputTokens,omitempty"`
	OutputTokens          *int64 `json:"outputTokens,omitempty"`
	TotalTokens           *int64 `json:"totalTokens,omitempty"`
	ReasoningTokens       *int64 `json:"reasoningTokens,omitempty"`
	CachedInputTokens     *int64 `json:"cachedInputTokens,omitempty"`
	CacheWriteInputTokens *int64 `json:"cacheWriteInputTokens,omitempty"`
}

// RunStarted must be the first event of a run.
type RunStarted struct {
	Base
	ThreadID        string `json:"threadId"`
	RunID           string `json:"runId"`
	ParentRunID     string `json:"parentRunId,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Input           JSON   `json:"input,omitempty"`
}

// RunFinished ends a run successfully (or with an interrupt).
type RunFinished struct {
	Base
	ThreadID string       `json:"threadId"`
	RunID    string       `json:"runId"`
	Result   JSON         `json:"result,omitempty"`
	Outcome  *Outcome     `json:"outcome,omitempty"`
	Usage    []TokenUsage `json:"usage,omitempty"`
}

// RunError ends a run with an error.
type RunError struct {
	Base
	Message string       `json:"message"`
	Code    string       `json:"code,omitempty"`
	Usage   []TokenUsage `json:"usage,omitempty"`
}

// StepStarted opens a named step.
type StepStarted struct {
	Base
	StepName string `json:"stepName"`
}

// StepFinished closes a named step.
type StepFinished struct {
	Base
	StepName string `json:"stepName"`
}

// TextMessageStart opens a text message.
type TextMessageStart struct {
	Base
	MessageID string `json:"messageId"`
	Role      string `json:"role,omitempty"`
	Name      string `json:"name,omitempty"`
}

// TextMessageContent appends Delta to an open text message.
type TextMessageContent struct {
	Base
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// TextMessageEnd closes a text message.
type TextMessageEnd struct {
	Base
	MessageID string `json:"messageId"`
}

// TextMessageChunk is a START/CONTENT/END shorthand; Normalize expands it.
type TextMessageChunk struct {
	Base
	MessageID string `json:"messageId,omitempty"`
	Role      string `json:"role,omitempty"`
	Delta     string `json:"delta,omitempty"`
	Name      string `json:"name,omitempty"`
}

// ToolCallStart opens a tool call.
type ToolCallStart struct {
	Base
	ToolCallID      string `json:"toolCallId"`
	ToolCallName    string `json:"toolCallName"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
}

// ToolCallArgs appends a fragment of the call's JSON arguments.
type ToolCallArgs struct {
	Base
	ToolCallID string `json:"toolCallId"`
	Delta      string `json:"delta"`
}

// ToolCallEnd closes a tool call.
type ToolCallEnd struct {
	Base
	ToolCallID string `json:"toolCallId"`
}

// ToolCallChunk is a START/ARGS/END shorthand; Normalize expands it.
type ToolCallChunk struct {
	Base
	ToolCallID      string `json:"toolCallId,omitempty"`
	ToolCallName    string `json:"toolCallName,omitempty"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
	Delta           string `json:"delta,omitempty"`
}

// ToolCallResult carries a tool's result as a new tool message. Content is
// always a string on the wire (0.0.5x clients accept nothing else).
type ToolCallResult struct {
	Base
	MessageID  string `json:"messageId"`
	ToolCallID string `json:"toolCallId"`
	Content    string `json:"content"`
	Role       string `json:"role,omitempty"`
}

// StateSnapshot replaces the agent state.
type StateSnapshot struct {
	Base
	Snapshot JSON `json:"snapshot"`
}

// StateDelta patches the agent state with an RFC 6902 patch.
type StateDelta struct {
	Base
	Delta JSON `json:"delta"`
}

// MessagesSnapshot replaces the message list.
type MessagesSnapshot struct {
	Base
	Messages []Message `json:"messages"`
}

// ActivitySnapshot creates or replaces an activity message. Content is a
// JSON object. Replace nil means true.
type ActivitySnapshot struct {
	Base
	MessageID    string `json:"messageId"`
	ActivityType string `json:"activityType"`
	Content      JSON   `json:"content"`
	Replace      *bool  `json:"replace,omitempty"`
}

// ActivityDelta patches an activity message's content.
type ActivityDelta struct {
	Base
	MessageID    string `json:"messageId"`
	ActivityType string `json:"activityType"`
	Patch        JSON   `json:"patch"`
}

// Raw passes through an event from another system.
type Raw struct {
	Base
	Event  JSON   `json:"event"`
	Source string `json:"source,omitempty"`
}

// Custom is an application-defined event.
type Custom struct {
	Base
	Name  string `json:"name"`
	Value JSON   `json:"value"`
}

// ReasoningStart opens a reasoning span.
type ReasoningStart struct {
	Base
	MessageID string `json:"messageId"`
}

// ReasoningMessageStart opens a reasoning message. Role is "reasoning".
type ReasoningMessageStart struct {
	Base
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
}

// ReasoningMessageContent appends to an open reasoning message.
type ReasoningMessageContent struct {
	Base
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// ReasoningMessageEnd closes a reasoning message.
type ReasoningMessageEnd struct {
	Base
	MessageID string `json:"messageId"`
}

// ReasoningMessageChunk is a shorthand; Normalize expands it.
type ReasoningMessageChunk struct {
	Base
	MessageID string `json:"messageId,omitempty"`
	Delta     string `json:"delta,omitempty"`
}

// ReasoningEnd closes a reasoning span.
type ReasoningEnd struct {
	Base
	MessageID string `json:"messageId"`
}

// ReasoningEncryptedValue attaches an encrypted reasoning value to an entity.
type ReasoningEncryptedValue struct {
	Base
	Subtype        string `json:"subtype"`
	EntityID       string `json:"entityId"`
	EncryptedValue string `json:"encryptedValue"`
}

// SubagentStarted opens a subagent (AG-UI 1.0; fatal to 0.0.57 clients).
type SubagentStarted struct {
	Base
	Name                string `json:"name"`
	Description         string `json:"description,omitempty"`
	ParentSubagentRunID string `json:"parentSubagentRunId,omitempty"`
	ParentToolCallID    string `json:"parentToolCallId,omitempty"`
	ParentMessageID     string `json:"parentMessageId,omitempty"`
}

// SubagentFinished closes a subagent.
type SubagentFinished struct {
	Base
	Result  JSON `json:"result,omitempty"`
	Outcome JSON `json:"outcome,omitempty"`
}

// SubagentError ends a subagent with an error.
type SubagentError struct {
	Base
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// ThinkingStart is the removed 0.0.5x form of ReasoningStart.
type ThinkingStart struct {
	Base
	Title string `json:"title,omitempty"`
}

// ThinkingEnd is the removed 0.0.5x form of ReasoningEnd.
type ThinkingEnd struct{ Base }

// ThinkingTextMessageStart is the removed form of ReasoningMessageStart.
type ThinkingTextMessageStart struct{ Base }

// ThinkingTextMessageContent is the removed form of ReasoningMessageContent.
type ThinkingTextMessageContent struct {
	Base
	Delta string `json:"delta"`
}

// ThinkingTextMessageEnd is the removed form of ReasoningMessageEnd.
type ThinkingTextMessageEnd struct{ Base }

// Unknown is an event whose type this package does not know. Normalize
// drops it: 0.0.5x clients abort the run on an unknown type.
type Unknown struct {
	Base
	Name string
	JSON json.RawMessage
}

// Type implements Event.
func (e *Unknown) Type() EventType { return EventType(e.Name) }

// MarshalJSON returns the event as it was received.
func (e *Unknown) MarshalJSON() ([]byte, error) { return e.JSON, nil }

// JSON is a raw JSON value. Unlike json.RawMessage, a JSON null decodes to
// nil, so an optional field that arrived as null is omitted when the value
// is encoded again.
type JSON []byte

// MarshalJSON implements json.Marshaler; nil encodes as null.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON implements json.Unmarshaler; null becomes nil.
func (j *JSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*j = nil
		return nil
	}
	*j = append((*j)[:0], b...)
	return nil
}
