// Package manifests holds only tests: the Kubernetes example of
// docs/distributed.md decoded as the API server decodes it, into the real
// API types, with unknown and duplicate fields refused, and checked against
// the release image and loadgate's own scenario parser. No cluster is
// needed, and none of this is in the loadgate binary.
package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

const (
	example    = "../../docs/examples/distributed/k8s-indexed-job.yaml"
	scenario   = "../../docs/examples/distributed/scenario.yaml"
	goreleaser = "../../.goreleaser.yaml"
	dockerfile = "../../Dockerfile"
)

// manifest is one multi-document file, decoded.
type manifest struct {
	jobs       map[string]*batchv1.Job
	configMaps map[string]*corev1.ConfigMap
	claims     map[string]*corev1.PersistentVolumeClaim
}

// decode decodes every document of data strictly, as kubectl apply with
// --validate=strict has the API server do: apiVersion and kind pick the
// type, and an unknown field, a field in the wrong case or a field given
// twice is an error.
func decode(data []byte) (*manifest, error) {
	scheme := runtime.NewScheme()
	if err := errors.Join(corev1.AddToScheme(scheme), batchv1.AddToScheme(scheme)); err != nil {
		return nil, err
	}
	dec := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	m := &manifest{jobs: map[string]*batchv1.Job{}, configMaps: map[string]*corev1.ConfigMap{}, claims: map[string]*corev1.PersistentVolumeClaim{}}
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		obj, gvk, err := dec.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		switch o := obj.(type) {
		case *batchv1.Job:
			m.jobs[o.Name] = o
		case *corev1.ConfigMap:
			m.configMaps[o.Name] = o
		case *corev1.PersistentVolumeClaim:
			m.claims[o.Name] = o
		default:
			return nil, fmt.Errorf("document %d: %s is not used by the example", i, gvk)
		}
	}
}

// release is what .goreleaser.yaml and the Dockerfile say of the image.
type release struct {
	images []string // repositories
	tags   []string // tag templates
	user   int64    // the Dockerfile's USER
}

func readRelease(t *testing.T) release {
	t.Helper()
	var cfg struct {
		DockersV2 []struct {
			Images []string `yaml:"images"`
			Tags   []string `yaml:"tags"`
		} `yaml:"dockers_v2"`
	}
	if err := yaml.Unmarshal(read(t, goreleaser), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.DockersV2) != 1 {
		t.Fatalf(".goreleaser.yaml has %d dockers_v2 entries, want the one image", len(cfg.DockersV2))
	}
	r := release{images: cfg.DockersV2[0].Images, tags: cfg.DockersV2[0].Tags}
	m := regexp.MustCompile(`(?m)^USER (\d+)(:\d+)?$`).FindSubmatch(read(t, dockerfile))
	if m == nil {
		t.Fatal("the Dockerfile names no numeric USER")
	}
	r.user, _ = strconv.ParseInt(string(m[1]), 10, 64)
	return r
}

// imageProblem says why ref is not an image the release publishes: one
// of its repositories, tagged latest (when a tag template makes latest)
// or with a version X.Y.Z (when one is the version).
func (r release) imageProblem(ref string) string {
	repo, tag, ok := strings.Cut(ref, ":")
	if !ok || !slices.Contains(r.images, repo) {
		return fmt.Sprintf("image %q is not one of the release's %v", ref, r.images)
	}
	has := func(s string) bool {
		return slices.ContainsFunc(r.tags, func(t string) bool { return strings.Contains(t, s) })
	}
	switch {
	case tag == "latest" && has("latest"):
	case regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(tag) && has("{{ .Version }}"):
	default:
		return fmt.Sprintf("image %q: the release tags %v make no such tag", ref, r.tags)
	}
	return ""
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestIndexedJobExample decodes the example and variants of it with one
// mistake each: every check can fail, and says what failed.
func TestIndexedJobExample(t *testing.T) {
	base := read(t, example)
	rel, want := readRelease(t), read(t, scenario)
	for _, tc := range []struct {
		name string
		file string // a testdata manifest instead of the example
		old  string // or the example with old replaced by new
		new  string
		want string // in the decode error or a problem; "" for none
	}{
		{name: "the example as documented"},
		{name: "a typo in a field of a Job", file: "testdata/paralellism.yaml", want: `unknown field "spec.paralellism"`},
		{name: "a field in the wrong case", old: "\n  parallelism: 4", new: "\n  Parallelism: 4", want: `unknown field "spec.Parallelism"`},
		{name: "a field given twice", old: "\n  completions: 4\n", new: "\n  completions: 4\n  completions: 4\n", want: `"completions" already set`},
		{name: "a field of the wrong type", old: "\n  completions: 4\n", new: "\n  completions: four\n", want: "cannot unmarshal string"},
		{name: "a kind the example does not use", old: "---\napiVersion: batch/v1\n", new: "---\napiVersion: v1\nkind: Namespace\nmetadata: { name: load }\n---\napiVersion: batch/v1\n", want: "/v1, Kind=Namespace is not used by the example"},
		{name: "a kind no API serves", old: "kind: ConfigMap", new: "kind: ConfigMapp", want: `no kind "ConfigMapp" is registered`},
		{name: "fewer segments in the command than pods", old: `"$segment/4"`, new: `"$segment/3"`, want: "segment count 3 in the command, completions and parallelism 4"},
		{name: "parallelism below completions", old: "\n  parallelism: 4", new: "\n  parallelism: 2", want: "completions 4 and parallelism 2"},
		{name: "the segment from the 0-based index", old: "$((JOB_COMPLETION_INDEX + 1))", new: "$JOB_COMPLETION_INDEX", want: "not JOB_COMPLETION_INDEX + 1"},
		{name: "merge misses a part", old: "            - $(RUN_DIR)/segment-4\n", new: "", want: "merges segment-4: false"},
		{name: "merge waits for too few parts", old: "-ge 4", new: "-ge 3", want: "no init container waits for 4 parts"},
		{name: "an image the release does not build", old: "image: ghcr.io/loadgate/loadgate:latest", new: "image: golang:1.26", want: `image "golang:1.26" is not one of the release's`},
		{name: "a tag the release does not make", old: "image: ghcr.io/loadgate/loadgate:latest", new: "image: ghcr.io/loadgate/loadgate:main", want: "make no such tag"},
		{name: "a released version", old: "image: ghcr.io/loadgate/loadgate:latest", new: "image: ghcr.io/loadgate/loadgate:1.4.0"},
		{name: "another user than the image's", old: "runAsUser: 65532,", new: "runAsUser: 1000,", want: "runAsUser must be the image's user 65532"},
		{name: "a container name the API refuses", old: "- name: merge\n", new: "- name: Merge_1\n", want: `container name "Merge_1": a lowercase RFC 1123 label`},
		{name: "an object name the API refuses", old: "name: loadgate-parts\n", new: "name: loadgate_parts\n", want: `name "loadgate_parts": a lowercase RFC 1123 subdomain`},
		{name: "a mount of no volume", old: "{ name: shell, mountPath: /shell, readOnly: true }", new: "{ name: shel, mountPath: /shell, readOnly: true }", want: "mounts shel, which is no volume"},
		{name: "a ConfigMap not in the manifest", old: "configMap: { name: loadgate-scenario }", new: "configMap: { name: scenario }", want: "no ConfigMap scenario in the manifest"},
		{name: "a scenario that does not validate", old: "      - p99 < 100ms\n", new: "      - p99 < 100\n", want: "ConfigMap loadgate-scenario/scenario.yaml: "},
		{name: "a scenario other than the examples'", old: "rate: 2000 # 500/s", new: "rate: 1000 # 500/s", want: "is not docs/examples/distributed/scenario.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := base
			switch {
			case tc.file != "":
				data = read(t, tc.file)
			case tc.old != "":
				if !bytes.Contains(base, []byte(tc.old)) {
					t.Fatalf("the example has no %q to replace", tc.old)
				}
				data = bytes.Replace(base, []byte(tc.old), []byte(tc.new), 1)
			}
			var found []string
			m, err := decode(data)
			if err != nil {
				found = []string{err.Error()}
			} else {
				found = problems(m, rel, want)
			}
			t.Logf("found:\n%s", strings.Join(found, "\n"))
			if tc.want == "" {
				if len(found) > 0 {
					t.Errorf("want no problem, got:\n%s", strings.Join(found, "\n"))
				}
				return
			}
			if !slices.ContainsFunc(found, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("want a problem with %q, got:\n%s", tc.want, strings.Join(found, "\n"))
			}
		})
	}
}
