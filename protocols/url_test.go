package protocols

import (
	"net/url"
	"testing"
)

func TestPort(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1/":       "80",
		"https://example.test/":   "443",
		"http://127.0.0.1:8080/":  "8080",
		"https://[::1]:8443/path": "8443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := Port(u); got != want {
			t.Errorf("Port(%s) = %s, want %s", raw, got, want)
		}
	}
}
