// Type and MarshalJSON for every event variant in event.go.

package agui

import "unsafe"

// Type implements Event.
func (*RunStarted) Type() EventType { return TypeRunStarted }

// MarshalJSON implements Event.
func (e *RunStarted) MarshalJSON() ([]byte, error) {
	type wire RunStarted
	return marshalTyped(TypeRunStarted, (*wire)(e))
}

// Type implements Event.
func (*RunFinished) Type() EventType { return TypeRunFinished }

// MarshalJSON implements Event.
func (e *RunFinished) MarshalJSON() ([]byte, error) {
	type wire RunFinished
	return marshalTyped(TypeRunFinished, (*wire)(e))
}

// Type implements Event.
func (*RunError) Type() EventType { return TypeRunError }

// MarshalJSON implements Event.
func (e *RunError) MarshalJSON() ([]byte, error) {
	type wire RunError
	return marshalTyped(TypeRunError, (*wire)(e))
}

// Type implements Event.
func (*StepStarted) Type() EventType { return TypeStepStarted }

// MarshalJSON implements Event.
func (e *StepStarted) MarshalJSON() ([]byte, error) {
	type wire StepStarted
	return marshalTyped(TypeStepStarted, (*wire)(e))
}

// Type implements Event.
func (*StepFinished) Type() EventType { return TypeStepFinished }

// MarshalJSON implements Event.
func (e *StepFinished) MarshalJSON() ([]byte, error) {
	type wire StepFinished
	return marshalTyped(TypeStepFinished, (*wire)(e))
}

// Type implements Event.
func (*TextMessageStart) Type() EventType { return TypeTextMessageStart }

// MarshalJSON implements Event.
func (e *TextMessageStart) MarshalJSON() ([]byte, error) {
	type wire TextMessageStart
	return marshalTyped(TypeTextMessageStart, (*wire)(e))
}

// Type implements Event.
func (*TextMessageContent) Type() EventType { return TypeTextMessageContent }

// MarshalJSON implements Event.
func (e *TextMessageContent) MarshalJSON() ([]byte, error) {
	if e.Base.isZero() {
		if b, ok := keptDelta(unsafe.Pointer(e), textContentPrefix, e.MessageID, e.Delta); ok {
			return b, nil
		}
		return appendDelta(TypeTextMessageContent, "messageId", e.MessageID, e.Delta, true), nil
	}
	type wire TextMessageContent
	return marshalTyped(TypeTextMessageContent, (*wire)(e))
}

// Type implements Event.
func (*TextMessageEnd) Type() EventType { return TypeTextMessageEnd }

// MarshalJSON implements Event.
func (e *TextMessageEnd) MarshalJSON() ([]byte, error) {
	if e.Base.isZero() {
		return appendDelta(TypeTextMessageEnd, "messageId", e.MessageID, "", false), nil
	}
	type wire TextMessageEnd
	return marshalTyped(TypeTextMessageEnd, (*wire)(e))
}

// Type implements Event.
func (*TextMessageChunk) Type() EventType { return TypeTextMessageChunk }

// MarshalJSON implements Event.
func (e *TextMessageChunk) MarshalJSON() ([]byte, error) {
	type wire TextMessageChunk
	return marshalTyped(TypeTextMessageChunk, (*wire)(e))
}

// Type implements Event.
func (*ToolCallStart) Type() EventType { return TypeToolCallStart }

// MarshalJSON implements Event.
func (e *ToolCallStart) MarshalJSON() ([]byte, error) {
	type wire ToolCallStart
	return marshalTyped(TypeToolCallStart, (*wire)(e))
}

// Type implements Event.
func (*ToolCallArgs) Type() EventType { return TypeToolCallArgs }

// MarshalJSON implements Event.
func (e *ToolCallArgs) MarshalJSON() ([]byte, error) {
	if e.Base.isZero() {
		if b, ok := keptDelta(unsafe.Pointer(e), toolArgsPrefix, e.ToolCallID, e.Delta); ok {
			return b, nil
		}
		return appendDelta(TypeToolCallArgs, "toolCallId", e.ToolCallID, e.Delta, true), nil
	}
	type wire ToolCallArgs
	return marshalTyped(TypeToolCallArgs, (*wire)(e))
}

// Type implements Event.
func (*ToolCallEnd) Type() EventType { return TypeToolCallEnd }

// MarshalJSON implements Event.
func (e *ToolCallEnd) MarshalJSON() ([]byte, error) {
	if e.Base.isZero() {
		return appendDelta(TypeToolCallEnd, "toolCallId", e.ToolCallID, "", false), nil
	}
	type wire ToolCallEnd
	return marshalTyped(TypeToolCallEnd, (*wire)(e))
}

// Type implements Event.
func (*ToolCallChunk) Type() EventType { return TypeToolCallChunk }

// MarshalJSON implements Event.
func (e *ToolCallChunk) MarshalJSON() ([]byte, error) {
	type wire ToolCallChunk
	return marshalTyped(TypeToolCallChunk, (*wire)(e))
}

// Type implements Event.
func (*ToolCallResult) Type() EventType { return TypeToolCallResult }

// MarshalJSON implements Event.
func (e *ToolCallResult) MarshalJSON() ([]byte, error) {
	type wire ToolCallResult
	return marshalTyped(TypeToolCallResult, (*wire)(e))
}

// Type implements Event.
func (*StateSnapshot) Type() EventType { return TypeStateSnapshot }

// MarshalJSON implements Event.
func (e *StateSnapshot) MarshalJSON() ([]byte, error) {
	type wire StateSnapshot
	return marshalTyped(TypeStateSnapshot, (*wire)(e))
}

// Type implements Event.
func (*StateDelta) Type() EventType { return TypeStateDelta }

// MarshalJSON implements Event.
func (e *StateDelta) MarshalJSON() ([]byte, error) {
	type wire StateDelta
	return marshalTyped(TypeStateDelta, (*wire)(e))
}

// Type implements Event.
func (*MessagesSnapshot) Type() EventType { return TypeMessagesSnapshot }

// MarshalJSON implements Event.
func (e *MessagesSnapshot) MarshalJSON() ([]byte, error) {
	type wire MessagesSnapshot
	return marshalTyped(TypeMessagesSnapshot, (*wire)(e))
}

// Type implements Event.
func (*ActivitySnapshot) Type() EventType { return TypeActivitySnapshot }

// MarshalJSON implements Event.
func (e *ActivitySnapshot) MarshalJSON() ([]byte, error) {
	type wire ActivitySnapshot
	return marshalTyped(TypeActivitySnapshot, (*wire)(e))
}

// Type implements Event.
func (*ActivityDelta) Type() EventType { return TypeActivityDelta }

// MarshalJSON implements Event.
func (e *ActivityDelta) MarshalJSON() ([]byte, error) {
	type wire ActivityDelta
	return marshalTyped(TypeActivityDelta, (*wire)(e))
}

// Type implements Event.
func (*Raw) Type() EventType { return TypeRaw }

// MarshalJSON implements Event.
func (e *Raw) MarshalJSON() ([]byte, error) {
	type wire Raw
	return marshalTyped(TypeRaw, (*wire)(e))
}

// Type implements Event.
func (*Custom) Type() EventType { return TypeCustom }

// MarshalJSON implements Event.
func (e *Custom) MarshalJSON() ([]byte, error) {
	type wire Custom
	return marshalTyped(TypeCustom, (*wire)(e))
}

// Type implements Event.
func (*ReasoningStart) Type() EventType { return TypeReasoningStart }

// MarshalJSON implements Event.
func (e *ReasoningStart) MarshalJSON() ([]byte, error) {
	type wire ReasoningStart
	return marshalTyped(TypeReasoningStart, (*wire)(e))
}

// Type implements Event.
func (*ReasoningMessageStart) Type() EventType { return TypeReasoningMessageStart }

// MarshalJSON implements Event.
func (e *ReasoningMessageStart) MarshalJSON() ([]byte, error) {
	type wire ReasoningMessageStart
	return marshalTyped(TypeReasoningMessageStart, (*wire)(e))
}

// Type implements Event.
func (*ReasoningMessageContent) Type() EventType { return TypeReasoningMessageContent }

// MarshalJSON implements Event.
func (e *ReasoningMessageContent) MarshalJSON() ([]byte, error) {
	if e.Base.isZero() {
		if b, ok := keptDelta(unsafe.Pointer(e), reasoningContentPrefix, e.MessageID, e.Delta); ok {
			return b, nil
		}
		return appendDelta(TypeReasoningMessageContent, "messageId", e.MessageID, e.Delta, true), nil
	}
	type wire ReasoningMessageContent
	return marshalTyped(TypeReasoningMessageContent, (*wire)(e))
}

// Type implements Event.
func (*ReasoningMessageEnd) Type() EventType { return TypeReasoningMessageEnd }

// MarshalJSON implements Event.
func (e *ReasoningMessageEnd) MarshalJSON() ([]byte, error) {
	if e.Base.isZero() {
		return appendDelta(TypeReasoningMessageEnd, "messageId", e.MessageID, "", false), nil
	}
	type wire ReasoningMessageEnd
	return marshalTyped(TypeReasoningMessageEnd, (*wire)(e))
}

// Type implements Event.
func (*ReasoningMessageChunk) Type() EventType { return TypeReasoningMessageChunk }

// MarshalJSON implements Event.
func (e *ReasoningMessageChunk) MarshalJSON() ([]byte, error) {
	type wire ReasoningMessageChunk
	return marshalTyped(TypeReasoningMessageChunk, (*wire)(e))
}

// Type implements Event.
func (*ReasoningEnd) Type() EventType { return TypeReasoningEnd }

// MarshalJSON implements Event.
func (e *ReasoningEnd) MarshalJSON() ([]byte, error) {
	type wire ReasoningEnd
	return marshalTyped(TypeReasoningEnd, (*wire)(e))
}

// Type implements Event.
func (*ReasoningEncryptedValue) Type() EventType { return TypeReasoningEncryptedValue }

// MarshalJSON implements Event.
func (e *ReasoningEncryptedValue) MarshalJSON() ([]byte, error) {
	type wire ReasoningEncryptedValue
	return marshalTyped(TypeReasoningEncryptedValue, (*wire)(e))
}

// Type implements Event.
func (*SubagentStarted) Type() EventType { return TypeSubagentStarted }

// MarshalJSON implements Event.
func (e *SubagentStarted) MarshalJSON() ([]byte, error) {
	type wire SubagentStarted
	return marshalTyped(TypeSubagentStarted, (*wire)(e))
}

// Type implements Event.
func (*SubagentFinished) Type() EventType { return TypeSubagentFinished }

// MarshalJSON implements Event.
func (e *SubagentFinished) MarshalJSON() ([]byte, error) {
	type wire SubagentFinished
	return marshalTyped(TypeSubagentFinished, (*wire)(e))
}

// Type implements Event.
func (*SubagentError) Type() EventType { return TypeSubagentError }

// MarshalJSON implements Event.
func (e *SubagentError) MarshalJSON() ([]byte, error) {
	type wire SubagentError
	return marshalTyped(TypeSubagentError, (*wire)(e))
}

// Type implements Event.
func (*ThinkingStart) Type() EventType { return TypeThinkingStart }

// MarshalJSON implements Event.
func (e *ThinkingStart) MarshalJSON() ([]byte, error) {
	type wire ThinkingStart
	return marshalTyped(TypeThinkingStart, (*wire)(e))
}

// Type implements Event.
func (*ThinkingEnd) Type() EventType { return TypeThinkingEnd }

// MarshalJSON implements Event.
func (e *ThinkingEnd) MarshalJSON() ([]byte, error) {
	type wire ThinkingEnd
	return marshalTyped(TypeThinkingEnd, (*wire)(e))
}

// Type implements Event.
func (*ThinkingTextMessageStart) Type() EventType { return TypeThinkingTextMessageStart }

// MarshalJSON implements Event.
func (e *ThinkingTextMessageStart) MarshalJSON() ([]byte, error) {
	type wire ThinkingTextMessageStart
	return marshalTyped(TypeThinkingTextMessageStart, (*wire)(e))
}

// Type implements Event.
func (*ThinkingTextMessageContent) Type() EventType { return TypeThinkingTextMessageContent }

// MarshalJSON implements Event.
func (e *ThinkingTextMessageContent) MarshalJSON() ([]byte, error) {
	type wire ThinkingTextMessageContent
	return marshalTyped(TypeThinkingTextMessageContent, (*wire)(e))
}

// Type implements Event.
func (*ThinkingTextMessageEnd) Type() EventType { return TypeThinkingTextMessageEnd }

// MarshalJSON implements Event.
func (e *ThinkingTextMessageEnd) MarshalJSON() ([]byte, error) {
	type wire ThinkingTextMessageEnd
	return marshalTyped(TypeThinkingTextMessageEnd, (*wire)(e))
}
