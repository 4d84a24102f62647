package scenarios

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseLocalIPs(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		want     []string // first and last address, and the count, when several
		count    int
		err      string
	}{
		{name: "one address", in: "127.0.0.2", limit: 10, want: []string{"127.0.0.2"}, count: 1},
		{name: "a range, both ends included", in: "127.0.0.2-127.0.0.40", limit: 100, want: []string{"127.0.0.2", "127.0.0.40"}, count: 39},
		{name: "spaces around the dash and the commas", in: " 127.0.0.2 - 127.0.0.3 , 127.0.0.9", limit: 10, want: []string{"127.0.0.2", "127.0.0.9"}, count: 3},
		{name: "a range across an octet", in: "10.0.0.254-10.0.1.1", limit: 10, want: []string{"10.0.0.254", "10.0.1.1"}, count: 4},
		{name: "a /24 leaves out network and broadcast", in: "127.1.0.0/24", limit: 1000, want: []string{"127.1.0.1", "127.1.0.254"}, count: 254},
		{name: "a prefix written with a host address is its network", in: "127.1.0.77/30", limit: 10, want: []string{"127.1.0.77", "127.1.0.78"}, count: 2},
		{name: "a /31 has two hosts", in: "10.0.0.0/31", limit: 10, want: []string{"10.0.0.0", "10.0.0.1"}, count: 2},
		{name: "a /32 is one address", in: "10.0.0.7/32", limit: 10, want: []string{"10.0.0.7"}, count: 1},
		{name: "IPv6 prefix keeps every address", in: "fd00::/126", limit: 10, want: []string{"fd00::", "fd00::3"}, count: 4},
		{name: "IPv6 range", in: "::1-::3", limit: 10, want: []string{"::1", "::3"}, count: 3},
		{name: "IPv4-mapped is unmapped", in: "::ffff:127.0.0.5", limit: 10, want: []string{"127.0.0.5"}, count: 1},
		{name: "exactly the limit", in: "127.0.0.1-127.0.0.4", limit: 4, want: []string{"127.0.0.1", "127.0.0.4"}, count: 4},
		{name: "over the limit", in: "127.0.0.1-127.0.0.5", limit: 4, err: "more than 4 addresses"},
		{name: "a /8 is over the limit", in: "127.0.0.0/8", limit: MaxLocalIPs, err: "more than 65536 addresses"},
		{name: "empty", in: "", limit: 10, err: "empty entry"},
		{name: "trailing comma", in: "127.0.0.1,", limit: 10, err: "empty entry"},
		{name: "not an address", in: "localhost", limit: 10, err: `"localhost" is not an IP address`},
		{name: "backwards range", in: "127.0.0.9-127.0.0.2", limit: 10, err: "ends before it starts"},
		{name: "mixed families", in: "127.0.0.1-::1", limit: 10, err: "mixes IPv4 and IPv6"},
		{name: "bad prefix", in: "127.0.0.0/33", limit: 10, err: "not a CIDR prefix"},
		{name: "mapped prefix", in: "::ffff:127.0.0.0/104", limit: 10, err: "write an IPv4 prefix"},
		{name: "unspecified", in: "0.0.0.0", limit: 10, err: "unspecified address"},
		{name: "multicast", in: "224.0.0.1", limit: 10, err: "multicast"},
		{name: "zone", in: "fe80::1%eth0", limit: 10, err: "zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLocalIPs(tt.in, tt.limit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseLocalIPs(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLocalIPs(%q): %v", tt.in, err)
			}
			if len(got) != tt.count {
				t.Fatalf("ParseLocalIPs(%q) has %d addresses, want %d: %v", tt.in, len(got), tt.count, got)
			}
			if got[0].String() != tt.want[0] || got[len(got)-1].String() != tt.want[len(tt.want)-1] {
				t.Errorf("ParseLocalIPs(%q) = %v … %v, want %v", tt.in, got[0], got[len(got)-1], tt.want)
			}
		})
	}
}

// FuzzLocalIPs checks that no input makes ParseLocalIPs panic, and that
// what it accepts is within the limit, bindable and parses back alone.
func FuzzLocalIPs(f *testing.F) {
	for _, s := range []string{"127.0.0.2-127.0.0.40", "10.0.0.0/30,10.0.1.1", "::1-::3", "fd00::/120", "0.0.0.0", "1.2.3.4-", "-", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseLocalIPs(s, 300)
		if err != nil {
			return
		}
		if len(got) == 0 || len(got) > 300 {
			t.Fatalf("ParseLocalIPs(%q): %d addresses", s, len(got))
		}
		for _, a := range got {
			if !a.IsValid() || a.IsUnspecified() || a.IsMulticast() || a.Zone() != "" || a.Is4In6() {
				t.Fatalf("ParseLocalIPs(%q) gave %v", s, a)
			}
			if back, err := ParseLocalIPs(a.String(), 1); err != nil || back[0] != a {
				t.Fatalf("ParseLocalIPs(%q) gave %v, which parses as %v, %v", s, a, back, err)
			}
		}
	})
}

func TestLocalIPsKey(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []netip.Addr
		err        string
	}{
		{name: "a string", yaml: `local_ips: 127.0.0.2-127.0.0.3`,
			want: []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")}},
		{name: "a list, in order", yaml: `local_ips: [127.0.0.9, 127.0.0.2]`,
			want: []netip.Addr{netip.MustParseAddr("127.0.0.9"), netip.MustParseAddr("127.0.0.2")}},
		{name: "a variable", yaml: "local_ips: ${src}",
			want: []netip.Addr{netip.MustParseAddr("127.0.0.7")}},
		{name: "an empty list", yaml: `local_ips: []`, err: "t.yaml:8:7: local_ips: needs at least one address"},
		{name: "a bad entry points at it", yaml: `local_ips: [127.0.0.2, nope]`, err: `t.yaml:8:30: local_ips: "nope" is not an IP address`},
		{name: "not with http2", yaml: "http2: true\n      local_ips: 127.0.0.2", err: "t.yaml:9:7: local_ips: not supported with http2: true"},
		{name: "too many in all", yaml: `local_ips: [10.1.0.0/16, 10.2.0.0/24]`, err: "t.yaml:8:32: local_ips: more than 65536 addresses in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "version: 1\nname: t\nvars: { src: 127.0.0.7 }\ntargets:\n  - name: a\n    http:\n      url: http://127.0.0.1:8080/\n      " +
				tt.yaml + "\nphases:\n  - name: m\n    duration: 1s\n"
			s, err := Parse("t.yaml", []byte(src), LoadOptions{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse = %v; want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.Targets[0].HTTP.LocalIPs
			if len(got) != len(tt.want) {
				t.Fatalf("LocalIPs = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("LocalIPs = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
