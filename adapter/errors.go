package adapter

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/labstack/echo/v5"
)

// httpError is an error answered before a stream starts: a status, a stable
// machine-readable code and a message for the client. Err is the cause,
// logged but never sent.
type httpError struct {
	Status int
	Code   string
	Msg    string
	Err    error
	RunID  string // the run concerned, if any
	// Details carries a validation detail (the CopilotKit contract's 400s).
	Details string
	// Allow is sent as the Allow header (405s).
	Allow string
	// RetryAfter, in seconds, is sent as Retry-After (429s, 503s).
	RetryAfter int
}

func (e *httpError) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Msg + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Msg
}

func (e *httpError) Unwrap() error { return e.Err }

// StatusCode implements echo.HTTPStatusCoder.
func (e *httpError) StatusCode() int { return e.Status }

func errBadRequest(msg string, err error) error {
	return &httpError{Status: http.StatusBadRequest, Code: "bad_request", Msg: msg, Err: err}
}

// bodyReadKey marks, in the echo context, a request whose body was read
// to its end (readBody).
const bodyReadKey = "genui.bodyRead"

// errorBody is the JSON body of every error answer.
type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	RunID   string `json:"runId,omitempty"`
	Details string `json:"details,omitempty"`
}

// errorHandler is the one place that maps errors to HTTP answers. Clients
// see the message of an *httpError; anything else is a 500 whose cause is
// logged and not sent.
func errorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(c *echo.Context, err error) {
		if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Committed {
			return
		}
		var he *httpError
		if !errors.As(err, &he) {
			status := echo.StatusCode(err)
			switch status {
			case http.StatusNotFound:
				he = &httpError{Status: status, Code: "not_found", Msg: "no such route: " + c.Request().Method + " " + c.Request().URL.Path}
			case http.StatusMethodNotAllowed:
				he = &httpError{Status: status, Code: "method_not_allowed", Msg: "method " + c.Request().Method + " is not allowed on " + c.Request().URL.Path}
			case 0, http.StatusInternalServerError:
				he = &httpError{Status: http.StatusInternalServerError, Code: "internal", Msg: "internal error", Err: err}
			default:
				he = &httpError{Status: status, Code: "http_" + http.StatusText(status), Msg: http.StatusText(status), Err: err}
			}
		}
		if he.Status >= 500 {
			logger.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
		} else {
			logger.Debug("request refused", "method", c.Request().Method, "path", c.Request().URL.Path, "status", he.Status, "error", err)
		}
		if c.Request().Method == http.MethodHead {
			_ = c.NoContent(he.Status)
			return
		}
		if he.Allow != "" {
			c.Response().Header().Set("Allow", he.Allow)
		}
		if he.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(he.RetryAfter))
		}
		if r := c.Request(); r.ContentLength != 0 && he.Status >= 400 && he.Status < 500 && c.Get(bodyReadKey) == nil {
			// The body may be unread (refused before reading it, or a
			// client that trickles it): answer now and close, rather than
			// let net/http drain it first. A body read whole leaves
			// nothing to drain: the connection stays.
			c.Response().Header().Set("Connection", "close")
		}
		_ = c.JSON(he.Status, errorBody{Error: he.Code, Message: he.Msg, RunID: he.RunID, Details: he.Details})
	}
}

// sync1 returns a func that builds a value once, on first use.
func sync1[T any](build func() T) func() T { return sync.OnceValue(build) }
