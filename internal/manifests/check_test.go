package manifests

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/scenarios"
)

// The segment number as the example's script computes it, and the count
// it passes to --segment.
var (
	segmentFromIndex = regexp.MustCompile(`segment=\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)`)
	segmentFlag      = regexp.MustCompile(`--segment "\$segment/(\d+)"`)
	waitForParts     = regexp.MustCompile(`-ge (\d+)`)
)

// problems is what a cluster, the release or loadgate would refuse in a
// decoded manifest: the segments Job and the merge Job must agree on the
// segment count, run the release image as its user, and mount only what
// the manifest holds; the ConfigMap's scenario must validate and be the
// examples' scenario.
func problems(m *manifest, r release, wantScenario []byte) []string {
	var segs, merges []*batchv1.Job
	for _, j := range m.jobs {
		if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
			segs = append(segs, j)
		} else {
			merges = append(merges, j)
		}
	}
	if len(segs) != 1 || len(merges) != 1 {
		return []string{fmt.Sprintf("want one Indexed Job of segments and one merge Job, have %d and %d", len(segs), len(merges))}
	}
	var out []string
	for _, name := range names(m) {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			out = append(out, fmt.Sprintf("name %q: %s", name, msg))
		}
	}
	n, p := segmentsProblems(segs[0])
	out = append(out, p...)
	if n > 0 {
		out = append(out, mergeProblems(merges[0], n)...)
	}
	for _, j := range []*batchv1.Job{segs[0], merges[0]} {
		out = append(out, podProblems(j, m, r)...)
	}
	for _, cm := range m.configMaps {
		for key, src := range cm.Data {
			out = append(out, scenarioProblems(cm.Name+"/"+key, src, wantScenario)...)
		}
	}
	return out
}

// names lists the names of every object of m.
func names(m *manifest) []string {
	var out []string
	for name := range m.jobs {
		out = append(out, name)
	}
	for name := range m.configMaps {
		out = append(out, name)
	}
	for name := range m.claims {
		out = append(out, name)
	}
	return out
}

// segmentsProblems checks the Indexed Job and returns its segment count.
func segmentsProblems(j *batchv1.Job) (int, []string) {
	var out []string
	spec := j.Spec
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism || *spec.Completions < 2 {
		return 0, []string{fmt.Sprintf("Job %s: completions %v and parallelism %v must be one N ≥ 2: every segment at once", j.Name, deref(spec.Completions), deref(spec.Parallelism))}
	}
	n := int(*spec.Completions)
	c := spec.Template.Spec.Containers[0]
	script := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
	m := segmentFlag.FindStringSubmatch(script)
	switch {
	case !segmentFromIndex.MatchString(script):
		out = append(out, fmt.Sprintf("Job %s: the segment is not JOB_COMPLETION_INDEX + 1:\n%s", j.Name, script))
	case m == nil:
		out = append(out, fmt.Sprintf("Job %s: no --segment \"$segment/N\" in:\n%s", j.Name, script))
	case m[1] != strconv.Itoa(n):
		out = append(out, fmt.Sprintf("Job %s: segment count %s in the command, completions and parallelism %d", j.Name, m[1], n))
	}
	if !hasEnv(c, "LOADGATE_START_AT") {
		out = append(out, fmt.Sprintf("Job %s: the segments share no start time (LOADGATE_START_AT)", j.Name))
	}
	return n, out
}

// mergeProblems checks that the merge Job waits for and merges n parts.
func mergeProblems(j *batchv1.Job, n int) []string {
	var out []string
	pod := j.Spec.Template.Spec
	c := pod.Containers[0]
	if len(c.Command) > 0 || len(c.Args) == 0 || c.Args[0] != "merge" {
		out = append(out, fmt.Sprintf("Job %s: want args [merge …] to the image's loadgate entry point, have command %q args %q", j.Name, c.Command, c.Args))
	}
	args := " " + strings.Join(c.Args, " ") + " "
	for i := 1; i <= n+1; i++ {
		if has := strings.Contains(args, fmt.Sprintf("/segment-%d ", i)); has != (i <= n) {
			out = append(out, fmt.Sprintf("Job %s: merges segment-%d: %v, with %d segments: %s", j.Name, i, has, n, args))
		}
	}
	waits := false
	for _, ic := range pod.InitContainers {
		if m := waitForParts.FindStringSubmatch(strings.Join(ic.Command, " ")); m != nil {
			waits = m[1] == strconv.Itoa(n)
		}
	}
	if !waits {
		out = append(out, fmt.Sprintf("Job %s: no init container waits for %d parts (-ge %d)", j.Name, n, n))
	}
	return out
}

// podProblems checks what the API server and the kubelet would refuse or
// fail on: mounts of volumes the pod lacks, a ConfigMap or claim the
// manifest lacks, and the release image run as another user than its own.
func podProblems(j *batchv1.Job, m *manifest, r release) []string {
	var out []string
	pod := j.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		out = append(out, fmt.Sprintf("Job %s: restartPolicy %q: a retried pod would measure another load", j.Name, pod.RestartPolicy))
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = true
		if cm := v.ConfigMap; cm != nil && m.configMaps[cm.Name] == nil {
			out = append(out, fmt.Sprintf("Job %s: volume %s: no ConfigMap %s in the manifest", j.Name, v.Name, cm.Name))
		}
		if pvc := v.PersistentVolumeClaim; pvc != nil && m.claims[pvc.ClaimName] == nil {
			out = append(out, fmt.Sprintf("Job %s: volume %s: no PersistentVolumeClaim %s in the manifest", j.Name, v.Name, pvc.ClaimName))
		}
	}
	for _, v := range pod.Volumes {
		out = append(out, nameProblems(j.Name, "volume", v.Name, validation.IsDNS1123Label)...)
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		out = append(out, nameProblems(j.Name, "container", c.Name, validation.IsDNS1123Label)...)
		for _, vm := range c.VolumeMounts {
			if !volumes[vm.Name] {
				out = append(out, fmt.Sprintf("Job %s: container %s mounts %s, which is no volume of the pod", j.Name, c.Name, vm.Name))
			}
		}
	}
	if p := r.imageProblem(pod.Containers[0].Image); p != "" {
		out = append(out, fmt.Sprintf("Job %s: %s", j.Name, p))
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != r.user {
		out = append(out, fmt.Sprintf("Job %s: runAsUser must be the image's user %d, so that fsGroup and the volume's owner match it", j.Name, r.user))
	}
	return out
}

// scenarioProblems validates a ConfigMap's scenario as loadgate validate
// does (parse, then compile the thresholds) and compares it with the
// examples' scenario.yaml, which the GitHub example runs.
func scenarioProblems(name, src string, want []byte) []string {
	sc, err := scenarios.Parse(name, []byte(src), scenarios.LoadOptions{})
	if err == nil {
		_, err = assertions.Compile(sc)
	}
	if err != nil {
		return []string{fmt.Sprintf("ConfigMap %s: %v", name, err)}
	}
	if !bytes.Equal([]byte(src), want) {
		return []string{fmt.Sprintf("ConfigMap %s is not docs/examples/distributed/scenario.yaml", name)}
	}
	return nil
}

// nameProblems is what the API server says of a name that its rule (a
// DNS label for containers and volumes) refuses.
func nameProblems(job, what, name string, rule func(string) []string) []string {
	var out []string
	for _, msg := range rule(name) {
		out = append(out, fmt.Sprintf("Job %s: %s name %q: %s", job, what, name, msg))
	}
	return out
}

func hasEnv(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name && e.Value != "" {
			return true
		}
	}
	return false
}

func deref(p *int32) any {
	if p == nil {
		return "unset"
	}
	return *p
}
