// Package har turns a browser recording, a HAR 1.2 file, into a scenario:
// the requests of the page's origin, in order, as a flow, with the values
// one response gave a later request carried by extractions (docs/import.md).
package har

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// DefaultMaxThink caps the think time a recorded pause becomes.
const DefaultMaxThink = 5 * time.Second

// Options shape the scenario an import writes.
type Options struct {
	Name          string        // the scenario's name; default from the page's host
	SchemaURL     string        // the JSON Schema the editor modeline points at; "" for none
	MaxThink      time.Duration // the longest think time; 0 is DefaultMaxThink
	NoThink       bool          // no think times at all
	IncludeAssets bool          // keep images, style sheets, scripts, fonts and media
	Origins       []string      // the origins kept; none: the page's
}

// Import reads the HAR file data (name is how errors call it) and returns
// a scenario whose flow sends the recorded requests in order. A problem
// with the file is an *Error, at its line and column where there is one.
func Import(name string, data []byte, opts Options) ([]byte, error) {
	origins, err := parseOrigins(opts.Origins)
	if err != nil {
		return nil, err
	}
	lg, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	if opts.MaxThink <= 0 {
		opts.MaxThink = DefaultMaxThink
	}
	rec := selectEntries(lg, origins, opts.IncludeAssets)
	if len(rec.targets) == 0 {
		return nil, &Error{Input: name, Msg: "no request left to import: " + rec.leftOut() + " (" + rec.hint() + ")"}
	}
	for _, t := range rec.targets {
		t.nameSteps()
		t.thinkTimes(opts)
		t.findReuse()
	}
	e := newEmitter(name, lg, rec, opts)
	e.hideSecrets()
	return e.encode()
}

// parseOrigins reads --origin values: scheme, host and port of URLs.
func parseOrigins(list []string) ([]string, error) {
	var out []string
	for _, s := range list {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--origin %q: want an http:// or https:// URL with a host", s)
		}
		out = append(out, originOf(u))
	}
	return out, nil
}

// originOf is scheme://host[:port] in lower case, without a default port.
func originOf(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	host = strings.TrimSuffix(host, map[string]string{"http": ":80", "https": ":443"}[scheme])
	return scheme + "://" + host
}
