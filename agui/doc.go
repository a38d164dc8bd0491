// Package agui is the AG-UI protocol as Go types: events, messages, the
// RunAgentInput a run starts with, an SSE encoder and decoder, the Agent and
// Middleware abstractions, the stream normaliser and the transcript of a
// thread. The HTTP client for upstream AG-UI agents is package aguihttp.
//
// # Wire format
//
// An AG-UI run is a stream of JSON events, one per SSE frame:
//
//	data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}
//
//	data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
//
//	data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}
//
//	data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}
//
//	data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
//
// Optional fields are omitted, never written as null. [Event] is a closed
// union: every variant is a pointer to one of the structs in this package and
// writes its own "type" discriminator.
//
// # Agents and middlewares
//
// An [Agent] runs a [Request] (the client's [RunAgentInput] and what the
// service knows of the run: its principal, the inbound headers, where its
// measurements and spans go, the hook called before a backend blocks on
// its upstream) and returns a pull iterator of events. A [Middleware]
// wraps an Agent. Cancellation is the caller's context plus stopping the
// range loop; an Agent must stop its upstream work when either happens.
//
// # Compatibility
//
// [Normalize] enforces the grammar accepted by @ag-ui/client 0.0.57, 0.0.59,
// 1.0.0 and 1.0.4 (see the package tests for one golden transcript per rule).
//
// This package imports only the standard library (not net/http) and its
// internal buffer pool.
package agui
