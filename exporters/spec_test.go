package exporters

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string // part of the error; "" = parses
	}{
		{"prometheus-rw=http://127.0.0.1:9090/api/v1/write", Spec{KindPrometheusRW, "http://127.0.0.1:9090/api/v1/write"}, ""},
		{"prometheus-rw=https://push.example/api/v1/write?tenant=a,b", Spec{KindPrometheusRW, "https://push.example/api/v1/write?tenant=a,b"}, ""},
		{"json-lines=out/points.jsonl", Spec{KindJSONLines, "out/points.jsonl"}, ""},
		{"json-lines=a=b.jsonl", Spec{KindJSONLines, "a=b.jsonl"}, ""}, // only the first = splits
		{"statsd=127.0.0.1:8125", Spec{}, `unknown exporter "statsd": want prometheus-rw=URL or json-lines=FILE`},
		{"prometheus-rw", Spec{}, "want prometheus-rw=URL or json-lines=FILE"},
		{"", Spec{}, "want prometheus-rw=URL or json-lines=FILE"},
		{"prometheus-rw=", Spec{}, "no URL given"},
		{"prometheus-rw=127.0.0.1:9090", Spec{}, "is not an http:// or https:// URL"},
		{"prometheus-rw=ftp://127.0.0.1/x", Spec{}, "is not an http:// or https:// URL"},
		{"prometheus-rw=http:///api/v1/write", Spec{}, "with a host"},
		{"prometheus-rw=http://[::1/x", Spec{}, "is not an http:// or https:// URL"},
		{"json-lines=", Spec{}, "json-lines: no file given"},
		{"json-lines=-", Spec{}, "name a file"},
	} {
		got, err := ParseSpec(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
		case got != tc.want:
			t.Errorf("%q = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseSpecs(t *testing.T) {
	got, err := ParseSpecs(" prometheus-rw=http://127.0.0.1:9090/api/v1/write,json-lines=a.jsonl  json-lines=b.jsonl\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Kind != KindPrometheusRW || got[1].Dest != "a.jsonl" || got[2].Dest != "b.jsonl" {
		t.Fatalf("%+v", got)
	}
	if got, err := ParseSpecs(" , "); err != nil || len(got) != 0 {
		t.Fatalf("blank list: %+v, %v", got, err)
	}
	if _, err := ParseSpecs("json-lines=a.jsonl,bogus"); err == nil {
		t.Fatal("a bad spec in the list was taken")
	}
}

func TestSpecStringHidesThePassword(t *testing.T) {
	s := Spec{KindPrometheusRW, "https://user:hunter2@push.example/api/v1/write"}.String()
	if strings.Contains(s, "hunter2") || !strings.Contains(s, "prometheus-rw https://user:") {
		t.Fatalf("%q", s)
	}
}
