package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// limiter caps concurrent requests in total and per key.
type limiter struct {
	total  chan struct{}
	perKey int
	mu     sync.Mutex
	held   map[string]int
}

func newLimiter(total, perKey int) *limiter {
	return &limiter{total: make(chan struct{}, total), perKey: perKey, held: map[string]int{}}
}

// acquire takes a slot for key, or reports that none is free.
func (l *limiter) acquire(key string) (release func(), ok bool) {
	l.mu.Lock()
	if l.held[key] >= l.perKey {
		l.mu.Unlock()
		return nil, false
	}
	select {
	case l.total <- struct{}{}:
	default:
		l.mu.Unlock()
		return nil, false
	}
	l.held[key]++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			if l.held[key]--; l.held[key] <= 0 {
				delete(l.held, key)
			}
			l.mu.Unlock()
			<-l.total
		})
	}, true
}

func (c A2UIAPIConfig) maxConcurrent() int {
	if c.MaxConcurrent == 0 {
		return 4
	}
	return c.MaxConcurrent
}

func (c A2UIAPIConfig) maxPerPrincipal() int {
	if c.MaxConcurrentPerPrincipal == 0 {
		return 2
	}
	return c.MaxConcurrentPerPrincipal
}

// Options are the validator's and converters' options these caps give.
func (c A2UILimits) Options() a2ui.Options {
	return a2ui.Options{MaxMessageBytes: c.MaxMessageBytes, MaxComponents: c.MaxComponents, MaxTemplateItems: c.MaxTemplateItems,
		MaxDepth: c.MaxDepth, MaxFunctionDepth: c.MaxFunctionDepth, MaxHeldMessages: c.MaxHeldMessages, MaxRemembered: c.MaxRemembered}
}

func (c A2UIAPIConfig) maxBody() int64 {
	if c.MaxBodyBytes == 0 {
		return 1 << 20
	}
	return c.MaxBodyBytes
}

func (c A2UIAPIConfig) maxErrors() int {
	if c.MaxErrors == 0 {
		return 100
	}
	return c.MaxErrors
}

// heavy guards a CPU-heavy route: the caller's credentials (unless the
// routes are public), a slot among the concurrent ones (429 with
// Retry-After when none is free; per principal, or per client address
// when public), then the body, within the routes' lower cap.
func (s *Server) heavyBody(c *echo.Context) (body []byte, release func(), err error) {
	key := ""
	if s.cfg.A2UIAPI.Public {
		key = "addr:" + clientAddr(c.Request())
	} else {
		p, err := s.principal(c.Request())
		if err != nil {
			return nil, nil, err
		}
		key = "principal:" + p
	}
	release, ok := s.heavy.acquire(key)
	if !ok {
		return nil, nil, &httpError{Status: http.StatusTooManyRequests, Code: "too_many_requests", RetryAfter: 1,
			Msg: "too many A2UI requests in progress (a2uiApi.maxConcurrent, maxConcurrentPerPrincipal); retry shortly"}
	}
	body, err = s.readBody(c, s.cfg.A2UIAPI.maxBody(), false)
	if err != nil {
		release()
		return nil, nil, err
	}
	return body, release, nil
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// splitMessages is a2ui.SplitMessages with its refusal as a 400.
func splitMessages(body []byte) ([][]byte, error) {
	msgs, err := a2ui.SplitMessages(body)
	if err != nil {
		return nil, errBadRequest(err.Error(), nil)
	}
	return msgs, nil
}

// handleA2UIValidate validates A2UI messages as one stream, in their own
// version (a2ui.Validator.Judge): {"valid": bool, "version": "v0.8" |
// "v0.9" | "v0.9.1" | "mixed" | "", "versions": [...], "messages": n,
// "errors": [...], "errorCount": n} and, for v0.8, "lossy": what its
// conversion to v0.9.1 cannot express. ?strict=true also refuses orphan
// components.
func handleA2UIValidate(s *Server) echo.HandlerFunc {
	v := s.a2ui
	strict := sync1(func() *a2ui.Validator {
		o := v.Options()
		o.Strict = true
		return a2ui.MustValidator(o)
	})
	return func(c *echo.Context) error {
		body, release, err := s.heavyBody(c)
		if err != nil {
			return err
		}
		defer release()
		msgs, err := splitMessages(body)
		if err != nil {
			return err
		}
		val := v
		if c.QueryParam("strict") == "true" {
			val = strict()
		}
		vd := val.Judge(msgs)
		errs := vd.Errors
		count := len(errs)
		max := s.cfg.A2UIAPI.maxErrors()
		if len(errs) > max {
			errs = errs[:max]
		}
		if errs == nil {
			errs = []a2ui.Error{}
		}
		if vd.Versions == nil {
			vd.Versions = []string{}
		}
		out := map[string]any{"valid": count == 0, "version": vd.Version, "versions": vd.Versions, "messages": len(msgs), "errors": errs, "errorCount": count}
		if vd.Lossy != nil {
			out["lossy"] = vd.Lossy[:min(len(vd.Lossy), max)]
		}
		return c.JSON(http.StatusOK, out)
	}
}

// handleA2UIRender turns any JSON value into validated A2UI messages:
// ?format=json (an array, default) or jsonl; ?surfaceId=, ?title=,
// ?version=, ?catalogId=, ?maxRows= shape the surface.
func handleA2UIRender(s *Server) echo.HandlerFunc {
	v := s.a2ui
	strict := sync1(func() *a2ui.Validator {
		o := v.Options()
		o.Strict, o.CheckBindings = true, true
		return a2ui.MustValidator(o)
	})
	return func(c *echo.Context) error {
		body, release, err := s.heavyBody(c)
		if err != nil {
			return err
		}
		defer release()
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
