package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
)

// ErrMalformedEvent is wrapped by the errors ParseEvent and Decode return for
// data that is not an AG-UI event at all: not JSON, not an object, or with no
// string "type".
var ErrMalformedEvent = errors.New("malformed AG-UI event")

var wirePool = sync.Pool{New: func() any { return new(wireEvent) }}

// wireEvent is the union of every event's fields, decoded in one pass.
// Fields whose JSON type differs between events are raw.
type wireEvent struct {
	Type          *string         `json:"type"`
	Timestamp     json.RawMessage `json:"timestamp"`
	RawEvent      JSON            `json:"rawEvent"`
	Metadata      JSON            `json:"metadata"`
	SubagentRunID string          `json:"subagentRunId"`

	ThreadID        string `json:"threadId"`
	RunID           string `json:"runId"`
	ParentRunID     string `json:"parentRunId"`
	ProtocolVersion string `json:"protocolVersion"`
	Input           JSON   `json:"input"`

	Result  JSON            `json:"result"`
	Outcome json.RawMessage `json:"outcome"`
	Usage   json.RawMessage `json:"usage"`
	Message string          `json:"message"`
	Code    string          `json:"code"`

	StepName        string          `json:"stepName"`
	MessageID       string          `json:"messageId"`
	Role            string          `json:"role"`
	Name            string          `json:"name"`
	Delta           json.RawMessage `json:"delta"`
	ToolCallID      string          `json:"toolCallId"`
	ToolCallName    string          `json:"toolCallName"`
	ParentMessageID string          `json:"parentMessageId"`
	Content         json.RawMessage `json:"content"`
	Snapshot        JSON            `json:"snapshot"`
	Messages        []Message       `json:"messages"`
	ActivityType    string          `json:"activityType"`
	Replace         *bool           `json:"replace"`
	Patch           JSON            `json:"patch"`
	Event           JSON            `json:"event"`
	Source          string          `json:"source"`
	Value           JSON            `json:"value"`
	Subtype         string          `json:"subtype"`
	EntityID        string          `json:"entityId"`
	EncryptedValue  string          `json:"encryptedValue"`
	Description     string          `json:"description"`
	ParentSubagent  string          `json:"parentSubagentRunId"`
	ParentToolCall  string          `json:"parentToolCallId"`
	Title           string          `json:"title"`
}

// Repair kinds recorded by ParseEvent and Normalize.
const (
	RepairNullField        = "null_field"
	RepairFloatTimestamp   = "float_timestamp"
	RepairBadTimestamp     = "bad_timestamp"
	RepairBadMetadata      = "bad_metadata"
	RepairToolResultString = "tool_result_content"
	RepairBadOutcome       = "bad_outcome"
	RepairBadUsage         = "bad_usage"
)

// ParseEvent decodes one event. It is lenient where clients are strict:
// optional nulls are dropped, a float timestamp is truncated to an integer,
// a non-object metadata is dropped, and a TOOL_CALL_RESULT whose content is
// not a string is turned into one (a Decoder reports each such fix). An
// unknown type yields *Unknown. Only data that is not an event object at all
// is an error (wrapping ErrMalformedEvent).
func ParseEvent(data []byte) (Event, error) {
	return parseEvent(nil, data, nil)
}

// parseEvent is ParseEvent taking a stream's canonical deltas from a
// (nil: from the heap) and reporting each repair to repaired (nil: none).
func parseEvent(a *arena, data []byte, repaired func(kind string)) (Event, error) {
	if ev, ok := fastParse(a, data); ok {
		return ev, nil
	}
	report := func(kind string) {
		if repaired != nil {
			repaired(kind)
		}
	}
	// The wire struct is large and escapes through json.Unmarshal: reuse
	// it. It is zeroed first, so every slice the event keeps is freshly
	// allocated by the decoder, never shared with a later event.
	w := wirePool.Get().(*wireEvent)
	*w = wireEvent{}
	defer wirePool.Put(w)
	if err := json.Unmarshal(data, w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedEvent, err)
	}
	if w.Type == nil || *w.Type == "" {
		return nil, fmt.Errorf("%w: missing \"type\"", ErrMalformedEvent)
	}
	var b Base
	b.RawEvent, b.Metadata, b.SubagentRunID = w.RawEvent, w.Metadata, w.SubagentRunID
	if bytes.Contains(data, []byte("null")) {
		if n := countTopLevelNulls(data); n > 0 {
			report(RepairNullField)
		}
	}
	if len(w.Timestamp) > 0 && string(w.Timestamp) != "null" {
		var f float64
		if err := json.Unmarshal(w.Timestamp, &f); err != nil || math.IsNaN(f) || f < 0 || f > 1<<62 {
			report(RepairBadTimestamp)
		} else {
			b.Timestamp = int64(f)
			if float64(b.Timestamp) != f {
				report(RepairFloatTimestamp)
			}
		}
	}
	if len(b.Metadata) > 0 && b.Metadata[0] != '{' {
		b.Metadata = nil
		report(RepairBadMetadata)
	}
	str := func(raw json.RawMessage) string {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) != nil {
			// A non-string delta is not something we can pass on.
			report("bad_delta")
		}
		return s
	}

	var ev Event
	switch t := EventType(*w.Type); t {
	case TypeRunStarted:
		ev = &RunStarted{Base: b, ThreadID: w.ThreadID, RunID: w.RunID, ParentRunID: w.ParentRunID, ProtocolVersion: w.ProtocolVersion, Input: w.Input}
	case TypeRunFinished:
		e := &RunFinished{Base: b, ThreadID: w.ThreadID, RunID: w.RunID, Result: w.Result}
		if len(w.Outcome) > 0 && string(w.Outcome) != "null" {
			var o Outcome
			if json.Unmarshal(w.Outcome, &o) != nil || o.Type == "" {
				report(RepairBadOutcome)
			} else {
				e.Outcome = &o
			}
		}
		e.Usage = parseUsage(w.Usage, report)
		ev = e
	case TypeRunError:
		e := &RunError{Base: b, Message: w.Message, Code: w.Code}
		e.Usage = parseUsage(w.Usage, report)
		ev = e
	case TypeStepStarted:
		ev = &StepStarted{Base: b, StepName: w.StepName}
	case TypeStepFinished:
		ev = &StepFinished{Base: b, StepName: w.StepName}
	case TypeTextMessageStart:
		ev = &TextMessageStart{Base: b, MessageID: w.MessageID, Role: w.Role, Name: w.Name}
	case TypeTextMessageContent:
		ev = &TextMessageContent{Base: b, MessageID: w.MessageID, Delta: str(w.Delta)}
	case TypeTextMessageEnd:
		ev = &TextMessageEnd{Base: b, MessageID: w.MessageID}
	case TypeTextMessageChunk:
		ev = &TextMessageChunk{Base: b, MessageID: w.MessageID, Role: w.Role, Delta: str(w.Delta), Name: w.Name}
	case TypeToolCallStart:
		ev = &ToolCallStart{Base: b, ToolCallID: w.ToolCallID, ToolCallName: w.ToolCallName, ParentMessageID: w.ParentMessageID}
	case TypeToolCallArgs:
		ev = &ToolCallArgs{Base: b, ToolCallID: w.ToolCallID, Delta: str(w.Delta)}
	case TypeToolCallEnd:
		ev = &ToolCallEnd{Base: b, ToolCallID: w.ToolCallID}
	case TypeToolCallChunk:
		ev = &ToolCallChunk{Base: b, ToolCallID: w.ToolCallID, ToolCallName: w.ToolCallName, ParentMessageID: w.ParentMessageID, Delta: str(w.Delta)}
	case TypeToolCallResult:
		e := &ToolCallResult{Base: b, MessageID: w.MessageID, ToolCallID: w.ToolCallID, Role: w.Role}
		e.Content = toolResultText(w.Content, report)
		ev = e
	case TypeStateSnapshot:
		ev = &StateSnapshot{Base: b, Snapshot: w.Snapshot}
	case TypeStateDelta:
		ev = &StateDelta{Base: b, Delta: JSON(w.Delta)}
	case TypeMessagesSnapshot:
		ev = &MessagesSnapshot{Base: b, Messages: w.Messages}
	case TypeActivitySnapshot:
		ev = &ActivitySnapshot{Base: b, MessageID: w.MessageID, ActivityType: w.ActivityType, Content: JSON(w.Content), Replace: w.Replace}
	case TypeActivityDelta:
		ev = &ActivityDelta{Base: b, MessageID: w.MessageID, ActivityType: w.ActivityType, Patch: w.Patch}
	case TypeRaw:
		ev = &Raw{Base: b, Event: w.Event, Source: w.Source}
	case TypeCustom:
		ev = &Custom{Base: b, Name: w.Name, Value: w.Value}
	case TypeReasoningStart:
		ev = &ReasoningStart{Base: b, MessageID: w.MessageID}
	case TypeReasoningMessageStart:
		ev = &ReasoningMessageStart{Base: b, MessageID: w.MessageID, Role: w.Role}
	case TypeReasoningMessageContent:
		ev = &ReasoningMessageContent{Base: b, MessageID: w.MessageID, Delta: str(w.Delta)}
	case TypeReasoningMessageEnd:
		ev = &ReasoningMessageEnd{Base: b, MessageID: w.MessageID}
	case TypeReasoningMessageChunk:
		ev = &ReasoningMessageChunk{Base: b, MessageID: w.MessageID, Delta: str(w.Delta)}
	case TypeReasoningEnd:
		ev = &ReasoningEnd{Base: b, MessageID: w.MessageID}
	case TypeReasoningEncryptedValue:
		ev = &ReasoningEncryptedValue{Base: b, Subtype: w.Subtype, EntityID: w.EntityID, EncryptedValue: w.EncryptedValue}
	case TypeSubagentStarted:
		ev = &SubagentStarted{Base: b, Name: w.Name, Description: w.Description, ParentSubagentRunID: w.ParentSubagent, ParentToolCallID: w.ParentToolCall, ParentMessageID: w.ParentMessageID}
	case TypeSubagentFinished:
		ev = &SubagentFinished{Base: b, Result: w.Result, Outcome: JSON(w.Outcome)}
	case TypeSubagentError:
		ev = &SubagentError{Base: b, Message: w.Message, Code: w.Code}
	case TypeThinkingStart:
		ev = &ThinkingStart{Base: b, Title: w.Title}
	case TypeThinkingEnd:
		ev = &ThinkingEnd{Base: b}
	case TypeThinkingTextMessageStart:
		ev = &ThinkingTextMessageStart{Base: b}
	case TypeThinkingTextMessageContent:
		ev = &ThinkingTextMessageContent{Base: b, Delta: str(w.Delta)}
	case TypeThinkingTextMessageEnd:
		ev = &ThinkingTextMessageEnd{Base: b}
	default:
		ev = &Unknown{Base: b, Name: string(t), JSON: append(json.RawMessage(nil), data...)}
	}
	return ev, nil
}

func countTopLevelNulls(data []byte) int {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return 0
	}
	n := 0
	for _, v := range m {
		if string(v) == "null" {
			n++
		}
	}
	return n
}

func parseUsage(raw json.RawMessage, report func(string)) []TokenUsage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var u []TokenUsage
	if json.Unmarshal(raw, &u) != nil {
		report(RepairBadUsage)
		return nil
	}
	for _, x := range u {
		for _, p := range []*int64{x.InputTokens, x.OutputTokens, x.TotalTokens, x.ReasoningTokens, x.CachedInputTokens, x.CacheWriteInputTokens} {
			if p != nil && *p < 0 {
				report(RepairBadUsage)
				return nil
			}
		}
	}
	return u
}

// toolResultText turns a TOOL_CALL_RESULT content into the string every
// client version accepts: text parts are joined with newlines, anything else
// is JSON-encoded.
func toolResultText(raw json.RawMessage, report func(string)) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	report(RepairToolResultString)
	if raw[0] == '[' {
		var parts []ContentPart
		if json.Unmarshal(raw, &parts) == nil {
			allText := len(parts) > 0
			for _, p := range parts {
				if p.Type != "text" {
					allText = false
				}
			}
			if allText {
				return Content{Parts: parts}.String()
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}
