package scenarios

import (
	"slices"
	"strings"
	"testing"
)

const shapeBase = `version: 1
name: api
targets:
  - name: api
    http: { url: "http://127.0.0.1:18080/items?page=1", method: POST, body: '{"a":1}' }
phases:
  - { name: warm, warmup: true, duration: 1s, concurrency: 2 }
  - { name: measure, duration: 1s, concurrency: 4, trials: 3 }
thresholds:
  - p99 < 50ms
`

func shapeOf(t *testing.T, src string) LoadShape {
	t.Helper()
	s, err := Parse("s.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return LoadShapeOf(&s.Cases[0], s.ServerOf(&s.Cases[0]), s.Secrets)
}

func TestLoadDifferences(t *testing.T) {
	base := shapeOf(t, shapeBase)
	for _, tc := range []struct {
		name string
		edit func(string) string
		want []string
	}{
		{"a threshold-only edit keeps the load", func(s string) string {
			return strings.Replace(s, "p99 < 50ms", "p99 < 80ms\n  - error_rate < 1%", 1)
		}, nil},
		{"the warm-up is not the measured load", func(s string) string {
			return strings.Replace(s, "duration: 1s, concurrency: 2", "duration: 5s, concurrency: 8", 1)
		}, nil},
		{"another port of the same server is the same load", func(s string) string {
			return strings.Replace(s, "18080", "18081", 1)
		}, nil},
		{"concurrency", func(s string) string {
			return strings.Replace(s, "concurrency: 4", "concurrency: 1", 1)
		}, []string{"concurrency 4 → 1"}},
		{"concurrency and duration", func(s string) string {
			return strings.Replace(s, "duration: 1s, concurrency: 4", "duration: 2s, concurrency: 1", 1)
		}, []string{"concurrency 4 → 1", "duration 1s → 2s"}},
		{"trials", func(s string) string { return strings.Replace(s, "trials: 3", "trials: 5", 1) },
			[]string{"trials 3 → 5"}},
		{"the model", func(s string) string {
			return strings.Replace(s, "concurrency: 4, trials: 3", "rate: 100, trials: 3", 1)
		}, []string{"model closed → open"}},
		{"the path and query", func(s string) string { return strings.Replace(s, "page=1", "page=2", 1) },
			[]string{"path /items?page=1 → /items?page=2"}},
		{"the method", func(s string) string { return strings.Replace(s, "POST", "PUT", 1) },
			[]string{"method POST → PUT"}},
		{"the body, by digest", func(s string) string { return strings.Replace(s, `{"a":1}`, `{"a":2}`, 1) },
			[]string{"body 7 B sha256:"}},
		{"keep-alive", func(s string) string {
			return strings.Replace(s, "method: POST", "method: POST, keepalive: false", 1)
		}, []string{"keepalive true → false"}},
		{"a phase renamed", func(s string) string { return strings.Replace(s, "name: measure", "name: soak", 1) },
			[]string{"measured phases measure → soak"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LoadDifferences(base, shapeOf(t, tc.edit(shapeBase)), "", true)
			if len(got) != len(tc.want) {
				t.Fatalf("differences %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("difference %d is %q, want it to begin %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestLoadDifferencesOfSameJobTargetsIgnoreWhatTheyHit(t *testing.T) {
	a := shapeOf(t, shapeBase)
	b := shapeOf(t, strings.Replace(shapeBase, "method: POST", "method: POST, keepalive: false", 1))
	if d := LoadDifferences(a, b, "", false); d != nil {
		t.Errorf("two targets differing in keep-alive, phases alike: %q, want none", d)
	}
	c := shapeOf(t, strings.Replace(shapeBase, "concurrency: 4", "concurrency: 8", 1))
	if d := LoadDifferences(a, c, "", false); !slices.Equal(d, []string{"concurrency 4 → 8"}) {
		t.Errorf("two targets at other concurrencies: %q", d)
	}
}

func TestLoadDifferencesNarrowedToAPhase(t *testing.T) {
	two := strings.Replace(shapeBase, "thresholds:", "  - { name: soak, duration: 1s, concurrency: 4 }\nthresholds:", 1)
	a := shapeOf(t, two)
	b := shapeOf(t, strings.Replace(two, "duration: 1s, concurrency: 4 }", "duration: 9s, concurrency: 4 }", 1))
	if d := LoadDifferences(a, b, "measure", true); d != nil {
		t.Errorf("a rule of phase measure, only soak changed: %q, want none", d)
	}
	if d := LoadDifferences(a, b, "", true); !slices.Equal(d, []string{"phase soak: duration 1s → 9s"}) {
		t.Errorf("every phase: %q", d)
	}
}

func TestLoadDifferencesIgnoreSettingsOneSideLacks(t *testing.T) {
	a := shapeOf(t, shapeBase)
	older := a
	older.Target = slices.DeleteFunc(slices.Clone(a.Target), func(s LoadSetting) bool { return s.Key == "body" })
	if d := LoadDifferences(older, a, "", true); d != nil {
		t.Errorf("a baseline written before body digests existed: %q, want none", d)
	}
}

func TestLoadShapeHoldsNoSecret(t *testing.T) {
	src := strings.Replace(shapeBase, `items?page=1", method: POST, body: '{"a":1}'`,
		`items?sig=${sig}", method: POST, body: '{"token":"${sig}"}'`, 1)
	s, err := Parse("s.yaml", []byte(src), LoadOptions{SecretVars: map[string]string{"sig": "sig-value-5555"}})
	if err != nil {
		t.Fatal(err)
	}
	shape := LoadShapeOf(&s.Cases[0], nil, s.Secrets)
	other, err := Parse("s.yaml", []byte(src), LoadOptions{SecretVars: map[string]string{"sig": "sig-value-6666"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range shape.Target {
		if strings.Contains(set.Value, "sig-value") {
			t.Errorf("%s = %q holds the secret", set.Key, set.Value)
		}
	}
	// The digest is of the redacted body: another secret is the same load,
	// and the digest gives nothing to guess the secret by.
	if d := LoadDifferences(shape, LoadShapeOf(&other.Cases[0], nil, other.Secrets), "", true); d != nil {
		t.Errorf("two secrets made differences %q", d)
	}
}

func TestServerCommandIsUnderTestNotLoad(t *testing.T) {
	withServer := strings.Replace(shapeBase, "targets:", "server: { command: 'app --workers 4', ready: { tcp: '127.0.0.1:18080' } }\ntargets:", 1)
	a := shapeOf(t, withServer)
	if !slices.Contains(a.Target, LoadSetting{"server", "sh -c app --workers 4"}) {
		t.Fatalf("the server's command is not recorded: %+v", a.Target)
	}
	b := shapeOf(t, strings.Replace(withServer, "--workers 4", "--workers 8", 1))
	if d := LoadDifferences(a, b, "", true); d != nil {
		t.Errorf("a tuned server made the load differ: %q", d)
	}
}

func TestLoadDifferencesOfTCPSteps(t *testing.T) {
	const tcp = `version: 1
name: redis
targets:
  - name: ping
    tcp:
      address: 127.0.0.1:6379
      framing: { line: "\r\n" }
      iteration:
        - send: "PING\r\n"
        - expect: { contains: PONG }
phases:
  - { name: measure, duration: 1s, concurrency: 4 }
`
	a := shapeOf(t, tcp)
	for _, tc := range []struct {
		name, old, new string
		want           string
	}{
		{"what an expect checks is not the load", "contains: PONG", "contains: PON", ""},
		{"another payload", `send: "PING\r\n"`, `send: "PING x\r\n"`, "steps sha256:"},
		{"a step more", "        - expect: { contains: PONG }", "        - expect: { contains: PONG }\n        - send: \"PING\\r\\n\"", "steps sha256:"},
		{"short connections", "      framing:", "      connection: per_iteration\n      framing:", "connection persistent → per_iteration"},
	} {
		d := LoadDifferences(a, shapeOf(t, strings.Replace(tcp, tc.old, tc.new, 1)), "", true)
		switch {
		case tc.want == "" && d != nil:
			t.Errorf("%s: differences %q, want none", tc.name, d)
		case tc.want != "" && (len(d) != 1 || !strings.HasPrefix(d[0], tc.want)):
			t.Errorf("%s: differences %q, want one beginning %q", tc.name, d, tc.want)
		}
	}
}
