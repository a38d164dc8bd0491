package dataview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The toolkit's input schemas. They are what the model sees (the tools'
// inputSchema) and what every call is checked against before anything is
// drawn: bad input is a tool error naming the fields, never a blank card.

var str = map[string]any{"type": "string"}

func strMax(n int, desc string) map[string]any {
	return map[string]any{"type": "string", "maxLength": n, "description": desc}
}

var chartTypes = []string{"bar", "line", "area", "pie", "donut", "scatter", "gauge", "radar"}

func chartProps() map[string]any {
	return map[string]any{
		"type":   map[string]any{"enum": chartTypes, "description": "bar, line, area, pie, donut, scatter, gauge or radar"},
		"title":  strMax(200, "the chart's heading"),
		"labels": map[string]any{"type": "array", "items": map[string]any{"type": []string{"string", "number"}}, "description": "the categories (x axis, slices, radar axes); one per value of each series"},
		"series": map[string]any{"type": "array", "minItems": 1, "items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":   strMax(100, "the series' name (legend)"),
				"values": map[string]any{"type": "array", "items": map[string]any{"type": "number"}, "description": "one number per label"},
				"points": map[string]any{"type": "array", "items": map[string]any{"type": "array", "items": map[string]any{"type": "number"}, "minItems": 2, "maxItems": 2}, "description": "scatter only: [x, y] pairs"},
			},
			"additionalProperties": false,
		}},
		"unit":  strMax(20, "the values' unit, e.g. \"k€\" or \"%\""),
		"value": map[string]any{"type": "number", "description": "gauge only: the current value"},
		"min":   map[string]any{"type": "number", "description": "gauge only (default 0)"},
		"max":   map[string]any{"type": "number", "description": "gauge only (default 100)"},
	}
}

func chartSchema() map[string]any {
	chart := map[string]any{"type": "object", "properties": chartProps(), "required": []string{"type"}, "additionalProperties": false}
	props := chartProps()
	props["charts"] = map[string]any{"type": "array", "minItems": 1, "items": chart, "description": "a dashboard: several charts in one card (then omit type/labels/series at the top)"}
	props["columns"] = map[string]any{"type": "integer", "minimum": 1, "maximum": 4, "description": "dashboard grid columns (default 2)"}
	return map[string]any{
		"type": "object", "properties": props, "additionalProperties": false,
		"anyOf": []any{map[string]any{"required": []string{"type"}}, map[string]any{"required": []string{"charts"}}},
	}
}

func metricsSchema() map[string]any {
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"metrics"},
		"properties": map[string]any{
			"title": strMax(200, "a heading"),
			"metrics": map[string]any{"type": "array", "minItems": 1, "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []string{"label", "value"},
				"properties": map[string]any{
					"label":     strMax(100, "what is measured"),
					"value":     map[string]any{"type": []string{"number", "string"}},
					"unit":      strMax(20, "e.g. \"€\", \"%\", \"ms\""),
					"delta":     map[string]any{"type": "number", "description": "change against the previous period"},
					"deltaUnit": strMax(20, "the delta's unit, e.g. \"%\" (default: the value's unit)"),
					"trend":     map[string]any{"enum": []string{"up", "down", "flat"}, "description": "default: from the delta's sign"},
					"good":      map[string]any{"enum": []string{"up", "down"}, "description": "which direction is good (default up)"},
				},
			}},
		},
	}
}

var columnTypes = []string{"string", "number", "integer", "currency", "percent", "date", "boolean"}

func tableSchema() map[string]any {
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"rows"},
		"properties": map[string]any{
			"title": strMax(200, "a heading"),
			"columns": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []string{"key"},
				"properties": map[string]any{
					"key":      strMax(100, "the row field"),
					"label":    strMax(100, "the header (default: the key, humanised)"),
					"type":     map[string]any{"enum": columnTypes},
					"currency": map[string]any{"type": "string", "pattern": "^[A-Z]{3}$", "description": "currency columns: ISO 4217 code (default USD)"},
					"decimals": map[string]any{"type": "integer", "minimum": 0, "maximum": 6},
				},
			}, "description": "default: every key of the rows, types guessed"},
			"rows":     map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
			"pageSize": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "rows per page in the card (default 10)"},
			"sort": map[string]any{"type": "object", "additionalProperties": false, "required": []string{"key"},
				"properties": map[string]any{"key": str, "desc": map[string]any{"type": "boolean"}}},
		},
	}
}

func htmlSchema() map[string]any {
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"html"},
		"properties": map[string]any{
			"title":  strMax(200, "a heading for the card"),
			"html":   map[string]any{"type": "string", "minLength": 1, "description": "a self-contained HTML fragment or document (inline CSS; no external resources: the card has no network)"},
			"height": map[string]any{"type": "integer", "minimum": 40, "maximum": 2000, "description": "card height in pixels (default 320)"},
		},
	}
}

func urlSchema() map[string]any {
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"url"},
		"properties": map[string]any{
			"url":    strMax(2048, "an absolute https URL on the deployment's allowlist"),
			"title":  strMax(200, "a heading for the card"),
			"height": map[string]any{"type": "integer", "minimum": 100, "maximum": 2000, "description": "card height in pixels (default 480)"},
		},
	}
}

func askSchema() map[string]any {
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"question"},
		"properties": map[string]any{
			"question":    strMax(500, "what to ask"),
			"mode":        map[string]any{"enum": []string{"single", "multiple", "text"}, "description": "single choice, multiple choice or free text (default: single with options, else text)"},
			"options":     map[string]any{"type": "array", "maxItems": 20, "items": strMax(200, ""), "description": "the choices (single and multiple)"},
			"placeholder": strMax(200, "free text: a hint in the empty field"),
		},
	}
}

// schemas are the compiled input schemas, by tool.
type inputSchemas map[string]*jsonschema.Schema

func compile(defs map[string]map[string]any) inputSchemas {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	out := inputSchemas{}
	for name, def := range defs {
		b, _ := json.Marshal(def)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			panic(err)
		}
		url := "mem://genui/" + name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			panic(err)
		}
		out[name] = c.MustCompile(url)
	}
	return out
}

var printer = message.NewPrinter(language.English)

// check validates args against the tool's schema; the error lists (up to
// ten) problems by JSON pointer.
func (s inputSchemas) check(tool string, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("the arguments are not JSON: %v", err)
	}
	err = s[tool].Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 && len(msgs) < 10 {
			msgs = append(msgs, "/"+strings.Join(e.InstanceLocation, "/")+": "+e.ErrorKind.LocalizedString(printer))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return errors.New(strings.Join(msgs, "; "))
}
