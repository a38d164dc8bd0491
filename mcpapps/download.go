package mcpapps

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// A View asks the host to save files with ui/download-file, params
// {contents: (EmbeddedResource | ResourceLink)[]}. The host bridge passes
// the request on through the card's proxied-request path; the adapter
// checks every file against DownloadOptions (a resource link is read from
// the card's own server first) and answers with the files the bridge
// saves, or refuses the whole request.

// Defaults of DownloadOptions.
const (
	DefaultMaxDownloadBytes = 2 << 20
	DefaultMaxDownloadFiles = 16
)

// DefaultDownloadMIMETypes are the types a View may download by default.
var DefaultDownloadMIMETypes = []string{"text/plain", "text/csv", "text/markdown", "application/json", "image/png", "image/jpeg", "application/pdf"}

// DownloadOptions bound what a View may download. Zero values mean the
// defaults.
type DownloadOptions struct {
	// MIMETypes are the allowed media types (parameters such as charset
	// are ignored when comparing).
	MIMETypes []string
	// MaxBytes caps the files of one request together (decoded).
	MaxBytes int
	// MaxFiles caps the files of one request.
	MaxFiles int
}

func (o DownloadOptions) withDefaults() DownloadOptions {
	if len(o.MIMETypes) == 0 {
		o.MIMETypes = DefaultDownloadMIMETypes
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxDownloadBytes
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxDownloadFiles
	}
	return o
}

// downloadItem is one entry of ui/download-file's contents.
type downloadItem struct {
	Type     string `json:"type"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MIMEType string `json:"mimeType"`
	Resource *struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	} `json:"resource"`
}

// DownloadFile is one file the bridge saves: Text or base64 Blob.
type DownloadFile struct {
	Name     string `json:"name"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// downloadRefused is a refused ui/download-file: invalid params.
type downloadRefused struct{ msg string }

func (e downloadRefused) Error() string { return e.msg }

func refuseDownload(format string, a ...any) error {
	return downloadRefused{fmt.Sprintf(format, a...)}
}

// baseType is a media type without its parameters, lower-cased.
func baseType(mt string) string {
	t, _, _ := strings.Cut(mt, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// fileName is a safe file name for uri (its last path segment) or name.
func fileName(name, uri string) string {
	if name == "" {
		name = path.Base(strings.TrimRight(uri, "/"))
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
	if name == "" || name == "." || name == ".." {
		name = "download"
	}
	if len(name) > 128 {
		name = name[:128]
	}
	return name
}

// download checks a ui/download-file request of the card of server and
// returns the files to save. read reads a resource link from that
// server.
func download(ctx context.Context, opts DownloadOptions, raw json.RawMessage, read func(ctx context.Context, uri string) (text string, blob []byte, mimeType string, err error)) ([]DownloadFile, error) {
	opts = opts.withDefaults()
	var params struct {
		Contents []downloadItem `json:"contents"`
	}
	if json.Unmarshal(raw, &params) != nil || len(params.Contents) == 0 {
		return nil, refuseDownload("ui/download-file needs params {contents: (EmbeddedResource | ResourceLink)[]}")
	}
	if len(params.Contents) > opts.MaxFiles {
		return nil, refuseDownload("ui/download-file: %d files, at most %d", len(params.Contents), opts.MaxFiles)
	}
	allowed := func(mt string) bool {
		return slices.ContainsFunc(opts.MIMETypes, func(a string) bool { return baseType(a) == baseType(mt) })
	}
	total := 0
	add := func(n int, what string) error {
		total += n
		if total > opts.MaxBytes {
			return refuseDownload("ui/download-file: %s makes the download larger than %d bytes", what, opts.MaxBytes)
		}
		return nil
	}
	var out []DownloadFile
	for _, it := range params.Contents {
		switch it.Type {
		case "resource":
			r := it.Resource
			if r == nil || r.URI == "" {
				return nil, refuseDownload("ui/download-file: an embedded resource needs {uri, mimeType, text | blob}")
			}
			if !allowed(r.MIMEType) {
				return nil, refuseDownload("ui/download-file: type %q of %s is not allowed (allowed: %v)", r.MIMEType, r.URI, opts.MIMETypes)
			}
			n := len(r.Text)
			if r.Blob != "" {
				n = base64.StdEncoding.DecodedLen(len(r.Blob))
			}
			if err := add(n, r.URI); err != nil {
				return nil, err
			}
			if r.Blob != "" {
				if _, err := base64.StdEncoding.DecodeString(r.Blob); err != nil {
					return nil, refuseDownload("ui/download-file: the blob of %s is not base64", r.URI)
				}
			}
			out = append(out, DownloadFile{Name: fileName("", r.URI), MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob})
		case "resource_link":
			if it.URI == "" {
				return nil, refuseDownload("ui/download-file: a resource link needs {uri, name}")
			}
			if it.MIMEType != "" && !allowed(it.MIMEType) {
				return nil, refuseDownload("ui/download-file: type %q of %s is not allowed (allowed: %v)", it.MIMEType, it.URI, opts.MIMETypes)
			}
			text, blob, mt, err := read(ctx, it.URI)
			if err != nil {
				return nil, fmt.Errorf("ui/download-file: reading %s: %w", it.URI, err)
			}
			if mt == "" {
				mt = it.MIMEType
			}
			if !allowed(mt) {
				return nil, refuseDownload("ui/download-file: type %q of %s is not allowed (allowed: %v)", mt, it.URI, opts.MIMETypes)
			}
			if err := add(len(text)+len(blob), it.URI); err != nil {
				return nil, err
			}
			f := DownloadFile{Name: fileName(it.Name, it.URI), MIMEType: mt, Text: text}
			if len(blob) > 0 {
				f.Blob = base64.StdEncoding.EncodeToString(blob)
			}
			out = append(out, f)
		default:
			return nil, refuseDownload("ui/download-file: content type %q is not a resource or resource_link", it.Type)
		}
	}
	return out, nil
}
