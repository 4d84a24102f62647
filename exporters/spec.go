package exporters

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The kinds of exporter.
const (
	KindPrometheusRW = "prometheus-rw" // Prometheus remote write 1.0 to a URL
	KindJSONLines    = "json-lines"    // a file of JSON lines, one per point
)

// Spec is one --export value: a kind of exporter and where it sends.
type Spec struct {
	Kind string // KindPrometheusRW or KindJSONLines
	Dest string // the receiver's URL, or the file
}

const specForm = "want prometheus-rw=URL or json-lines=FILE"

// ParseSpec reads KIND=DEST, refusing an unknown kind, a URL that is not
// http(s) with a host, and an empty file: before any load is sent.
func ParseSpec(s string) (Spec, error) {
	kind, dest, ok := strings.Cut(s, "=")
	if !ok {
		return Spec{}, fmt.Errorf("%q: %s", s, specForm)
	}
	sp := Spec{Kind: kind, Dest: dest}
	switch kind {
	case KindPrometheusRW:
		if err := checkURL(dest); err != nil {
			return Spec{}, fmt.Errorf("%s: %w", kind, err)
		}
	case KindJSONLines:
		switch dest {
		case "":
			return Spec{}, fmt.Errorf("%s: no file given: %s", kind, specForm)
		case "-":
			return Spec{}, fmt.Errorf("%s: standard output holds the reports: name a file", kind)
		}
	default:
		return Spec{}, fmt.Errorf("unknown exporter %q: %s", kind, specForm)
	}
	return sp, nil
}

// ParseSpecs reads several specs separated by commas or spaces, as
// LOADGATE_EXPORT holds them.
func ParseSpecs(list string) ([]Spec, error) {
	var out []Spec
	for _, s := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		sp, err := ParseSpec(s)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

func checkURL(s string) error {
	if s == "" {
		return errors.New("no URL given: want the receiver's write URL, such as http://127.0.0.1:9090/api/v1/write")
	}
	u, err := url.Parse(s)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	if err == nil {
		s = u.Redacted()
	}
	return fmt.Errorf("%q is not an http:// or https:// URL with a host, such as http://127.0.0.1:9090/api/v1/write", s)
}

// String names the exporter in messages: its kind and destination, a
// URL's password hidden.
func (s Spec) String() string {
	dest := s.Dest
	if u, err := url.Parse(dest); err == nil && s.Kind == KindPrometheusRW {
		dest = u.Redacted()
	}
	return s.Kind + " " + dest
}
