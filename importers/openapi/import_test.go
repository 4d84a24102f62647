package openapi

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden scenarios under testdata/")

const dataFile = "imported.params.csv"

// validate writes what an import made into dir and parses it as loadgate
// validate does (rules compiled too).
func validate(t testing.TB, dir string, res *Result) (*scenarios.Scenario, error) {
	t.Helper()
	if res.Data != nil {
		if err := os.WriteFile(filepath.Join(dir, dataFile), res.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := scenarios.Parse(filepath.Join(dir, "imported.yaml"), res.Scenario, scenarios.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if _, err := assertions.Compile(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// readSpec reads a description under testdata/specs, unzipping a .gz.
func readSpec(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "specs", name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(name, ".gz") {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	data, err = io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// requestCount is how many requests the scenario's targets send in all.
func requestCount(sc *scenarios.Scenario) int {
	n := 0
	for _, t := range sc.Targets {
		n += len(t.HTTP.Requests)
	}
	return n
}

// TestRealDescriptions: published descriptions, 3.0 and 3.1, YAML and
// JSON, small and large, import in both shapes into scenarios that
// validate, with the operations counted.
func TestRealDescriptions(t *testing.T) {
	tests := []struct {
		spec             string
		operations, skip int // what the mix sends, and what is listed as not imported
		targets          int // of the mix
		flows            int // targets of --flow-per-tag
	}{
		{"petstore.yaml", 3, 0, 1, 1},
		{"petstore-expanded.yaml", 4, 0, 1, 1},
		{"petstore-expanded.json", 4, 0, 1, 1},
		{"webhook-example.yaml", 0, 1, 0, 0},
		{"non-oauth-scopes.yaml", 1, 0, 1, 1},
		{"callback-example.yaml", 1, 1, 1, 1},
		{"uspto.yaml", 3, 0, 1, 2},
		{"api-with-examples.yaml", 2, 0, 1, 1},
		{"link-example.yaml", 6, 0, 1, 1},
		{"twilio_api_v2010.yaml.gz", 197, 0, 1, 75},
		{"twilio_taskrouter_v1.json.gz", 61, 0, 1, 26},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			spec := readSpec(t, tt.spec)
			for _, flows := range []bool{false, true} {
				res, err := Import(tt.spec, spec, Options{FlowPerTag: flows, DataFile: dataFile})
				if tt.operations == 0 {
					if err == nil || !strings.Contains(err.Error(), "no operation to import") {
						t.Fatalf("flows %v: want no operation to import, got %v", flows, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("flows %v: %v", flows, err)
				}
				if res.Operations != tt.operations || res.Skipped != tt.skip {
					t.Errorf("flows %v: %d operations, %d skipped; want %d, %d", flows, res.Operations, res.Skipped, tt.operations, tt.skip)
				}
				sc, err := validate(t, t.TempDir(), res)
				if err != nil {
					t.Fatalf("flows %v: not valid: %v\n%s", flows, err, res.Scenario)
				}
				want := tt.targets
				if flows {
					want = tt.flows
				}
				if len(sc.Targets) != want {
					t.Errorf("flows %v: %d targets, want %d", flows, len(sc.Targets), want)
				}
				if !flows && requestCount(sc) != tt.operations*tt.targets {
					t.Errorf("the mix sends %d requests, want %d", requestCount(sc), tt.operations*tt.targets)
				}
			}
		})
	}
}

// TestGolden: whole scenarios as written, for review; each is valid.
func TestGolden(t *testing.T) {
	tests := []struct {
		golden, spec string
		opts         Options
	}{
		{"petstore.yaml", "petstore.yaml", Options{}},
		{"petstore-flows.yaml", "petstore-expanded.yaml", Options{FlowPerTag: true, DataFile: dataFile}},
		{"non-oauth-scopes.yaml", "non-oauth-scopes.yaml", Options{BaseURL: "https://api.example.com/base"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			tt.opts.SchemaURL = "https://raw.githubusercontent.com/loadgate/loadgate/main/docs/loadgate.schema.json"
			res, err := Import(tt.spec, readSpec(t, tt.spec), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := validate(t, t.TempDir(), res); err != nil {
				t.Fatalf("%v\n%s", err, res.Scenario)
			}
			got := string(res.Scenario)
			if res.Data != nil {
				got += "\n# " + dataFile + ":\n# " + strings.ReplaceAll(strings.TrimSuffix(string(res.Data), "\n"), "\n", "\n# ") + "\n"
			}
			golden := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", golden, d)
			}
		})
	}
}

// FuzzImportOpenAPI: any input is either refused as an *Error naming the
// file, or becomes a scenario that loadgate validate accepts, in both
// shapes.
func FuzzImportOpenAPI(f *testing.F) {
	for _, name := range []string{"petstore.yaml", "petstore-expanded.json", "non-oauth-scopes.yaml", "webhook-example.yaml", "callback-example.yaml", "api-with-examples.yaml"} {
		f.Add(readSpec(f, name))
	}
	f.Add([]byte("swagger: \"2.0\"\ninfo: {title: x, version: \"1\"}\npaths: {}\n"))
	f.Add([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a/{id}":{"post":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","minimum":3}}],"requestBody":{"content":{"application/x-www-form-urlencoded":{"schema":{"type":"object","required":["n"],"properties":{"n":{"type":"array","items":{"type":"string","format":"uuid"}}}}}}},"responses":{"201":{"description":"ok"}}}}}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, spec []byte) {
		for _, flows := range []bool{false, true} {
			res, err := Import("fuzz.yaml", spec, Options{FlowPerTag: flows, DataFile: dataFile})
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.File != "fuzz.yaml" {
					t.Fatalf("an error that names no file: %v", err)
				}
				continue
			}
			if _, err := validate(t, dir, res); err != nil {
				t.Fatalf("flows %v: the scenario is not valid: %v\n%s", flows, err, res.Scenario)
			}
		}
	})
}

// TestDocShowsPetstore: docs/import.md shows the Petstore's scenario as
// the import writes it.
func TestDocShowsPetstore(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "import.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(want)+"```\n") {
		t.Errorf("docs/import.md does not show testdata/petstore.yaml verbatim; copy it into the doc")
	}
}
