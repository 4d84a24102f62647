package scenarios

import (
	"net"
	"strings"
)

// NameOfHost makes a scenario or target name of a host: api.example.com
// is api-example-com, at most 40 characters. ok is false for a host that
// names nothing in particular: none, localhost or an address.
func NameOfHost(host string) (name string, ok bool) {
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	if host == "" || host == "localhost" || net.ParseIP(host) != nil {
		return "", false
	}
	var b strings.Builder
	for _, c := range host {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name = strings.Trim(b.String(), "-")
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	return name, name != ""
}
