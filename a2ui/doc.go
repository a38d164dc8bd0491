// Package a2ui is A2UI v0.9 / v0.9.1: messages and basic-catalog component
// builders, a strict validator (the official JSON schemas plus the integrity
// rules schemas cannot express), converters from v0.8 and v1.0
// (V08Converter, Validator.Upgrade) and down to v0.8
// (Validator.Downgrade), a generator that turns structured JSON into a
// validated surface, the AG-UI middleware that carries surfaces as
// "a2ui-surface" activity snapshots, and Emit, which gives each client
// the A2UI version it declares it renders.
//
// # Wire format
//
// A surface is built by a sequence of messages, each with exactly one
// operation:
//
//	{"version":"v0.9","createSurface":{"surfaceId":"s1","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}
//	{"version":"v0.9","updateComponents":{"surfaceId":"s1","components":[
//	  {"id":"root","component":"Card","child":"t"},
//	  {"id":"t","component":"Text","text":{"path":"/title"}}]}}
//	{"version":"v0.9","updateDataModel":{"surfaceId":"s1","path":"/","value":{"title":"Hi"}}}
//
// Over AG-UI the three travel together in one ACTIVITY_SNAPSHOT with
// activityType "a2ui-surface" and content {"a2ui_operations":[...]}.
//
// # Validation
//
// [Validator] applies the official schemas (one component at a time, for
// readable errors) and every integrity rule: unique ids, a root, resolving
// references, no cycles, no orphans (strict), depth and nesting limits,
// path syntax, bounded templates, weight only under Row/Column, surface
// state across messages and, for generated surfaces, bindings that point at
// data that exists. Errors carry a stable code and a JSON-Pointer path and
// convert to A2UI VALIDATION_FAILED client messages.
package a2ui
