package scenarios

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// secretScenario uses every kind of credential loadgate recognises, each
// through a variable whose name says nothing about it.
const secretScenario = `version: 1
name: secrets
vars:
  auth: auth-value-1111
  pw: pw-value-2222
  sess: sess-value-3333
  jwt: jwt-value-4444
  sig: sig-value-5555
  body_pin: { value: pin-value-6666, secret: true }
  page: "42"
  host: 127.0.0.1:8080
targets:
  - name: api
    http:
      url: http://user:${pw}@${host}/items?page=${page}&token=${sig}
      method: POST
      headers:
        Authorization: Bearer ${jwt}
        Cookie: theme=dark; session=${sess}
        X-Api-Key: ${auth}
        Accept: text/plain
      body: '{"pin": "${body_pin}"}'
phases:
  - { name: m, requests: 10 }
`

var secretValues = []string{"auth-value-1111", "pw-value-2222", "sess-value-3333", "jwt-value-4444", "sig-value-5555", "pin-value-6666"}

func TestSecretsCollectedByUse(t *testing.T) {
	tests := []struct {
		name       string
		opts       LoadOptions
		secret     []string // must be in Secrets
		notSecret  []string // must not
		wantVars   map[string]string
		redactVars []string // variables whose value Redact must hide
	}{
		{
			name:      "file values",
			secret:    append(slices.Clone(secretValues), "Bearer jwt-value-4444", "theme=dark; session=sess-value-3333"),
			notSecret: []string{"42", "127.0.0.1:8080", "text/plain", "user"},
		},
		{
			name:      "--secret-var marks a variable that is not a credential by use",
			opts:      LoadOptions{SecretVars: map[string]string{"host": "127.0.0.42:9090"}},
			secret:    append(slices.Clone(secretValues), "127.0.0.42:9090"),
			notSecret: []string{"127.0.0.1:8080"},
		},
		{
			name:      "LOADGATE_SECRET_VAR_ marks and sets, LOADGATE_VAR_ only sets",
			opts:      LoadOptions{LookupEnv: mapEnv(map[string]string{secretEnvPrefix + "page": "4242", envPrefix + "host": "127.0.0.9:80"})},
			secret:    append(slices.Clone(secretValues), "4242"),
			notSecret: []string{"127.0.0.9:80"},
		},
		{
			name:      "--var overrides a credential: the new value is the secret",
			opts:      LoadOptions{Vars: map[string]string{"jwt": "other-jwt-7777"}},
			secret:    []string{"other-jwt-7777"},
			notSecret: []string{"jwt-value-4444"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(secretScenario), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tc.secret {
				if !slices.Contains(s.Secrets, v) {
					t.Errorf("Secrets lacks %q: %q", v, s.Secrets)
				}
			}
			for _, v := range tc.notSecret {
				if slices.Contains(s.Secrets, v) {
					t.Errorf("Secrets holds %q, which is no credential", v)
				}
			}
			// Every stored form of the scenario is clean: the source, the
			// variables, the request as resolved.
			req := s.Cases[0].Target.HTTP.Requests[0]
			stored := []string{secretScenario, req.URL, string(req.Body)}
			for _, h := range req.Headers {
				stored = append(stored, h.Value)
			}
			for _, v := range s.Vars {
				stored = append(stored, v)
			}
			for _, text := range stored {
				red := s.Redact(text)
				for _, v := range tc.secret {
					if strings.Contains(red, v) {
						t.Errorf("Redact(%q) = %q still holds %q", text, red, v)
					}
				}
			}
		})
	}
}

// TestSecretFalseMarksNothing: `secret: false` is the default, which
// neither redacts the value nor takes back --secret-var.
func TestSecretFalseMarksNothing(t *testing.T) {
	const src = "version: 1\nname: s\nvars:\n  code: { value: plain-value-8888, secret: false }\n" +
		"targets:\n  - { name: t, http: { url: \"http://127.0.0.1:8080/${code}\" } }\nphases:\n  - { name: m, requests: 1 }\n"
	tests := []struct {
		name   string
		opts   LoadOptions
		secret bool
	}{
		{"the file alone", LoadOptions{}, false},
		{"--secret-var sets it", LoadOptions{SecretVars: map[string]string{"code": "cli-value-9999"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(src), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			value := s.Vars["code"]
			if got := slices.Contains(s.Secrets, value); got != tc.secret {
				t.Errorf("%q secret = %v, want %v (Secrets %q)", value, got, tc.secret, s.Secrets)
			}
		})
	}
}

func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestRedactedSourceParsesAgain is what `loadgate merge` relies on: a part
// stores the source and the variables redacted, and parsing them again
// gives the same scenario, with the same hash, and no secret.
func TestRedactedSourceParsesAgain(t *testing.T) {
	s, err := Parse("s.yaml", []byte(secretScenario), LoadOptions{SecretVars: map[string]string{"page": "4242"}})
	if err != nil {
		t.Fatal(err)
	}
	src := s.Redact(secretScenario)
	vars := map[string]string{}
	for k, v := range s.Vars {
		vars[k] = s.Redact(v)
	}
	for _, v := range secretValues {
		if strings.Contains(src, v) || slices.Contains(slices.Collect(maps.Values(vars)), v) {
			t.Errorf("the redacted source or variables hold %q", v)
		}
	}
	again, err := Parse("s.yaml", []byte(src), LoadOptions{Vars: vars})
	if err != nil {
		t.Fatalf("the redacted source does not parse: %v\n%s", err, src)
	}
	if again.Hash != s.Hash {
		t.Errorf("Hash of the redacted source = %.12s, want %.12s", again.Hash, s.Hash)
	}
	if diff := cmp.Diff(caseIDs(s), caseIDs(again)); diff != "" || again.Name != s.Name {
		t.Errorf("the redacted source is another scenario (%q, -want +got):\n%s", again.Name, diff)
	}
	if got := again.Cases[0].Target.HTTP.Requests[0].Headers[0].Value; got != "Bearer "+Redacted {
		t.Errorf("Authorization parsed again = %q, want %q", got, "Bearer "+Redacted)
	}
}

func caseIDs(s *Scenario) []string {
	var ids []string
	for _, c := range s.Cases {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestRedactor(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"nothing to redact", nil, "a b c", "a b c"},
		{"every occurrence", []string{"abcd"}, "abcd-abcd", "REDACTED-REDACTED"},
		{"longest first: the container goes whole", []string{"tok1", "Bearer tok1"}, "Bearer tok1 and tok1", "REDACTED and REDACTED"},
		{"short values are no secrets", []string{"1", "on", "abc"}, "1 on abc", "1 on abc"},
		{"a redacted value is not redacted again", []string{"Bearer REDACTED"}, "Bearer REDACTED", "Bearer REDACTED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewRedactor(tc.secrets...).Redact(tc.in); got != tc.want {
				t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	var none *Scenario
	if got := none.Redact("x"); got != "x" {
		t.Errorf("nil Scenario: Redact = %q", got)
	}
}

func TestMaskURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1/", "http://127.0.0.1/"},
		{"http://u:p4ss@h:1/x", "http://u:REDACTED@h:1/x"},
		{"http://u@h/", "http://u@h/"},
		{"http://h/?page=2&token=abc&API_KEY=k#frag", "http://h/?page=2&token=REDACTED&API_KEY=REDACTED#frag"},
		{"http://h/?x-amz-signature=s&sig=t&key=u&keep=v", "http://h/?x-amz-signature=REDACTED&sig=REDACTED&key=REDACTED&keep=v"},
		{"ftp://a:b:c@h:99999/?access_token=zz", "ftp://a:REDACTED@h:99999/?access_token=REDACTED"},
		{"not a url ?password=x", "not a url ?password=REDACTED"},
	}
	for _, tc := range tests {
		if got := maskURL(tc.in); got != tc.want {
			t.Errorf("MaskURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
