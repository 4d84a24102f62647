package protocols

import "net/url"

// Port is u's port, or its scheme's default: 443 for https, 80 for http.
func Port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
