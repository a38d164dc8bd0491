package adapter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// readBody reads any body up to max bytes (no content-type check).
func readBody(r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength > max {
		return nil, errTooLarge(max)
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if asMaxBytes(err, &mbe) {
			return nil, errTooLarge(max)
		}
		return nil, errBadRequest("cannot read the request body", err)
	}
	return b, nil
}

// splitMessages accepts one message, a JSON array of messages, the
// {"messages":[...]} wrapper, or JSONL. A JSONL line that is not JSON is
// kept as it is, so the validator reports it with its index.
func splitMessages(body []byte) ([][]byte, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errBadRequest("empty body: send one A2UI message, a JSON array of them, {\"messages\":[...]} or JSONL", nil)
	}
	if json.Valid(body) {
		switch body[0] {
		case '[':
			var list []json.RawMessage
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, errBadRequest("body is not a JSON array of messages", err)
			}
			return raws(list), nil
		case '{':
			var w struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if json.Unmarshal(body, &w) == nil && w.Messages != nil {
				return raws(w.Messages), nil
			}
			return [][]byte{body}, nil
		}
		return nil, errBadRequest("body must be a JSON object, an array of messages or JSONL", nil)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), len(body)+1)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	if len(out) == 1 {
		return nil, errBadRequest("body is not valid JSON (nor JSONL)", nil)
	}
	return out, nil
}

func raws(list []json.RawMessage) [][]byte {
	out := make([][]byte, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}

// handleA2UIValidate validates A2UI messages as one stream:
// {"valid": bool, "messages": n, "errors": [...]}. ?strict=true also
// refuses orphan components.
func handleA2UIValidate(v *a2ui.Validator, max int64) echo.HandlerFunc {
	strict := sync1(func() *a2ui.Validator { return a2ui.MustValidator(a2ui.Options{Strict: true}) })
	return func(c *echo.Context) error {
		body, err := readBody(c.Request(), max)
		if err != nil {
			return err
		}
		msgs, err := splitMessages(body)
		if err != nil {
			return err
		}
		val := v
		if c.QueryParam("strict") == "true" {
			val = strict()
		}
		errs := val.ValidateBatch(msgs)
		if errs == nil {
			errs = []a2ui.Error{}
		}
		return c.JSON(http.StatusOK, map[string]any{"valid": len(errs) == 0, "messages": len(msgs), "errors": errs})
	}
}

// handleA2UIRender turns any JSON value into validated A2UI messages:
// ?format=json (an array, default) or jsonl; ?surfaceId=, ?title=,
// ?version=, ?catalogId=, ?maxRows= shape the surface.
func handleA2UIRender(v *a2ui.Validator, max int64) echo.HandlerFunc {
	strict := sync1(func() *a2ui.Validator {
		return a2ui.MustValidator(a2ui.Options{Strict: true, CheckBindings: true, CatalogIDs: v.Options().CatalogIDs})
	})
	return func(c *echo.Context) error {
		body, err := readBody(c.Request(), max)
		if err != nil {
			return err
		}
		if !json.Valid(body) {
			return errBadRequest("body must be one JSON value", nil)
		}
		format := c.QueryParamOr("format", "json")
		if format != "json" && format != "jsonl" {
			return errBadRequest(fmt.Sprintf("format must be json or jsonl, got %q", format), nil)
		}
		version := c.QueryParamOr("version", a2ui.DefaultVersion)
		if version != "v0.9" && version != "v0.9.1" {
			return errBadRequest(fmt.Sprintf("version must be v0.9 or v0.9.1, got %q", version), nil)
		}
		var maxRows int
		if mr := c.QueryParam("maxRows"); mr != "" {
			if _, err := fmt.Sscan(mr, &maxRows); err != nil || maxRows <= 0 {
				return errBadRequest("maxRows must be a positive integer", nil)
			}
		}
		msgs, err := a2ui.Generate(body, a2ui.GenerateOptions{
			SurfaceID: c.QueryParamOr("surfaceId", "surface"),
			Title:     c.QueryParam("title"),
			CatalogID: c.QueryParam("catalogId"),
			Version:   version,
			MaxRows:   maxRows,
		})
		if err != nil {
			return errBadRequest("cannot render this JSON", err)
		}
		out := make([][]byte, len(msgs))
		for i, m := range msgs {
			if out[i], err = json.Marshal(m); err != nil {
				return err
			}
		}
		s := strict().NewStream()
		s.AllowCatalog(c.QueryParam("catalogId"))
		var errs []a2ui.Error
		for _, m := range out {
			errs = append(errs, s.Validate(m)...)
		}
		if errs = append(errs, s.Finish()...); len(errs) > 0 {
			return fmt.Errorf("generated surface failed validation: %v", errs)
		}
		if format == "jsonl" {
			c.Response().Header().Set("Content-Type", "application/jsonl")
			c.Response().WriteHeader(http.StatusOK)
			for _, m := range out {
				c.Response().Write(append(m, '\n'))
			}
			return nil
		}
		return c.JSONBlob(http.StatusOK, append(append([]byte("["), bytes.Join(out, []byte(","))...), ']'))
	}
}
