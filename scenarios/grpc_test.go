package scenarios

import "testing"

func TestGRPCCodes(t *testing.T) {
	tests := []struct {
		in   string
		want GRPCCode
		ok   bool
		name string
	}{
		{"OK", 0, true, "OK"},
		{"ok", 0, true, "OK"},
		{"unavailable", 14, true, "UNAVAILABLE"},
		{"14", 14, true, "UNAVAILABLE"},
		{"16", 16, true, "UNAUTHENTICATED"},
		{"17", 0, false, ""},
		{"UNAVAILBLE", 0, false, ""},
		{"-1", 0, false, ""},
	}
	for _, tc := range tests {
		got, ok := parseGRPCCode(tc.in)
		if ok != tc.ok || (ok && (got != tc.want || got.String() != tc.name)) {
			t.Errorf("parseGRPCCode(%q) = %d (%s), %v; want %d (%s), %v", tc.in, got, got, ok, tc.want, tc.name, tc.ok)
		}
	}
	if s := GRPCCode(42).String(); s != "42" {
		t.Errorf("GRPCCode(42).String() = %q, want the number", s)
	}
}

func TestPlainJSON(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"3", "3", true},
		{"-7", "-7", true},
		{"0x1F", "31", true},
		{"1_000", "1000", true},
		{"18446744073709551615", "18446744073709551615", true},
		{"2.5", "2.5", true},
		{"1e3", "1000", true},
		{"true", "true", true},
		{"False", "false", true},
		{"~", "null", true},
		{"", "null", true},
		{"hello", "", false},
		{".inf", "", false},
		{"NaN", "", false},
		{"1.2.3", "", false},
	}
	for _, tc := range tests {
		got, ok := plainJSON(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("plainJSON(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestJSONStringKeepsPlaceholdersAndEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a"b`, `"a\"b"`},
		{"<&>", `"<&>"`},
		{"line\nbreak", `"line\nbreak"`},
	}
	for _, tc := range tests {
		if got := jsonString(tc.in); got != tc.want {
			t.Errorf("jsonString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestMessageTemplate checks the JSON text a message written as YAML
// compiles to, rendered with the load-time sample values.
func TestMessageTemplate(t *testing.T) {
	tests := []struct{ message, want string }{
		{`{text: 'say "hi" {{"{{"}}x', n: 3}`, `{"text":"say \"hi\" {{x","n":3}`},
		{`{text: "{{seq}}-{{uuid}}", n: "{{rand_int 4 9}}"}`, `{"text":"1-00000000-0000-4000-8000-000000000000","n":"4"}`},
		{"\n      text: \"tab\\there\"\n      n: ${n}", `{"text":"tab\there","n":12}`},
		{`'{"text": "{{worker}}", "n": {{seq}}}'`, `{"text": "0", "n": 1}`},
		{`''`, `{}`},
	}
	for _, tc := range tests {
		src := "version: 1\nname: t\nvars: {n: 12}\ntargets:\n- name: a\n  grpc:\n    address: h:1\n    method: loadgate.echo.v1.Echo/Say\n" +
			"    proto: ../testdata/proto/echo.proto\n    message: " + tc.message + "\nphases: [{name: m, requests: 1}]\n"
		s, err := Parse("t.yaml", []byte(src), LoadOptions{})
		if err != nil {
			t.Errorf("message %s: %v", tc.message, err)
			continue
		}
		if got := string(sampleRender(s.Targets[0].GRPC.Message)); got != tc.want {
			t.Errorf("message %s renders %s, want %s", tc.message, got, tc.want)
		}
	}
}
