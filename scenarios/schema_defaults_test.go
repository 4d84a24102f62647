package scenarios

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Scenarios that hold one object of each kind, written in flow style with
// @@ where the property under test goes, as the first key of its mapping.
const (
	headerT = "version: 1\nname: d\n"
	phasesT = "phases:\n  - { name: p, requests: 1 }\n"
	httpT   = headerT + "targets:\n  - name: t\n    http: { @@ url: \"https://127.0.0.1:8443/\" }\n" + phasesT
	http2T  = headerT + "targets:\n  - name: t\n    http: { @@ url: \"https://127.0.0.1:8443/\", http2: true }\n" + phasesT
	flowT   = headerT + "targets:\n  - name: t\n    http: { @@ url: \"http://127.0.0.1:8080/\", flow: [ { name: a, path: / } ] }\n" + phasesT
	stepT   = headerT + "targets:\n  - name: t\n    http: { url: \"http://127.0.0.1:8080/\", flow: [ { @@ name: a, path: / } ] }\n" + phasesT
	reqT    = headerT + "targets:\n  - name: t\n    http: { url: \"http://127.0.0.1:8080/\", requests: [ { @@ name: a }, { name: b } ] }\n" + phasesT
	tlsT    = headerT + "targets:\n  - name: t\n    http: { url: \"https://127.0.0.1:8443/\", tls: { @@ } }\n" + phasesT
	tcpT    = headerT + "targets:\n  - name: t\n    tcp: { @@ address: \"127.0.0.1:7\", iteration: [ { send: x } ] }\n" + phasesT
	lenT    = headerT + "targets:\n  - name: t\n    tcp: { address: \"127.0.0.1:7\", framing: { length_prefixed: { @@ fields: [ {u16: 1}, {u32: length} ] } }, iteration: [ { send: x } ] }\n" + phasesT
	grpcT   = headerT + "targets:\n  - name: t\n    grpc: { @@ address: \"127.0.0.1:50051\", method: loadgate.echo.v1.Echo/Say, proto: ../../proto/echo.proto }\n" + phasesT
	grpcExT = headerT + "targets:\n  - name: t\n    grpc: { address: \"127.0.0.1:50051\", method: loadgate.echo.v1.Echo/Say, reflection: true, expect: { @@ } }\n" + phasesT
	wsT     = headerT + "targets:\n  - name: t\n    websocket: { @@ url: \"ws://127.0.0.1:8080/\", iteration: [ { send: x } ] }\n" + phasesT
	targetT = headerT + "targets:\n  - name: t\n    http: { url: \"http://127.0.0.1:8080/\" }\n"
	phaseT  = targetT + "phases:\n  - { @@ name: p, duration: 10s }\n  - { name: q, requests: 1 }\n"
	openT   = targetT + "phases:\n  - { @@ name: p, duration: 10s, rate: 10 }\n"
	abT     = headerT + "targets:\n  - { name: a, http: { url: \"http://127.0.0.1:8080/\" } }\n  - { name: b, baseline_target: a, http: { url: \"http://127.0.0.1:8081/\" } }\n" +
		"phases:\n  - { @@ name: p, requests: 1, trials: 2 }\n"
	searchT = targetT + "phases:\n  - { name: s, search: { @@ rate: { from: 10, max: 100 }, step: 5s, slo: \"p99 < 50ms\" } }\n"
	ruleT   = targetT + phasesT + "thresholds:\n  - { @@ rule: \"p99 < 50ms\" }\n"
	serverT = targetT + phasesT + "server: { @@ command: \"true\" }\n"
	readyT  = targetT + phasesT + "server: { command: \"true\", ready: { @@ tcp: \"127.0.0.1:8080\" } }\n"
	varT    = targetT + phasesT + "vars: { v: { @@ value: long-enough-to-redact } }\n"
	dataT   = targetT + phasesT + "data: { users: { @@ file: users.csv } }\n"
	promT   = targetT + phasesT + "monitor: { prometheus: { @@ url: \"http://127.0.0.1:9090\", groupname: api } }\n"
)

// schemaDefault ties a property's `default` to what loadgate resolves.
type schemaDefault struct {
	tmpl string
	// other is a value unlike the default, to show that pick reads the
	// property; "" where none decodes in this template.
	other string
	pick  func(*Scenario) any
}

func target(s *Scenario) Target { return s.Cases[0].Target }
func phase(s *Scenario) Phase   { return s.Cases[0].Phases[0] }

// schemaDefaults lists every property of the schema that has a default.
var schemaDefaults = map[string]schemaDefault{
	"/definitions/prometheus/properties/window":            {promT, `"30s"`, func(s *Scenario) any { return s.Monitor.Prometheus.Lookback }},
	"/definitions/prometheus/properties/step":              {promT, `"5s"`, func(s *Scenario) any { return s.Monitor.Prometheus.Step }},
	"/definitions/prometheus/properties/settle":            {promT, `"10s"`, func(s *Scenario) any { return s.Monitor.Prometheus.Settle }},
	"/definitions/var/properties/secret":                   {varT, "true", func(s *Scenario) any { return s.Secrets }},
	"/definitions/server/properties/stop_signal":           {serverT, `"INT"`, func(s *Scenario) any { return s.Server.StopSignal }},
	"/definitions/server/properties/stop_timeout":          {serverT, `"1s"`, func(s *Scenario) any { return s.Server.StopTimeout }},
	"/definitions/ready/properties/timeout":                {readyT, `"5s"`, func(s *Scenario) any { return s.Server.Ready.Timeout }},
	"/definitions/tcp/properties/connection":               {tcpT, "per_iteration", func(s *Scenario) any { return target(s).TCP.Connection }},
	"/definitions/tcp/properties/timeout":                  {tcpT, `"5s"`, func(s *Scenario) any { return target(s).TCP.Timeout }},
	"/definitions/tcp/properties/max_frame":                {tcpT, `"64KiB"`, func(s *Scenario) any { return target(s).TCP.MaxFrame }},
	"/definitions/tcp/properties/framing":                  {tcpT, `{ line: "\n" }`, func(s *Scenario) any { return target(s).TCP.Framing }},
	"/definitions/lengthPrefixed/properties/adjust":        {lenT, "-6", func(s *Scenario) any { return target(s).TCP.Framing }},
	"/definitions/lengthPrefixed/properties/little_endian": {lenT, "true", func(s *Scenario) any { return target(s).TCP.Framing }},
	"/definitions/grpc/properties/message":                 {grpcT, "{ text: hi }", func(s *Scenario) any { return target(s).GRPC.Message }},
	// reflection: true and proto: exclude each other.
	"/definitions/grpc/properties/reflection":             {grpcT, "", func(s *Scenario) any { return target(s).GRPC.Reflection }},
	"/definitions/grpc/properties/timeout":                {grpcT, `"5s"`, func(s *Scenario) any { return target(s).GRPC.Timeout }},
	"/definitions/grpc/properties/connections":            {grpcT, "4", func(s *Scenario) any { return target(s).GRPC.Connections }},
	"/definitions/grpc/properties/expect/properties/code": {grpcExT, "NOT_FOUND", func(s *Scenario) any { return target(s).GRPC.Expect }},
	"/definitions/websocket/properties/connection":        {wsT, "per_iteration", func(s *Scenario) any { return target(s).WebSocket.Connection }},
	"/definitions/websocket/properties/timeout":           {wsT, `"5s"`, func(s *Scenario) any { return target(s).WebSocket.Timeout }},
	"/definitions/websocket/properties/max_message":       {wsT, `"64KiB"`, func(s *Scenario) any { return target(s).WebSocket.MaxMessage }},
	"/definitions/http/properties/method":                 {httpT, "POST", func(s *Scenario) any { return target(s).HTTP.Requests[0].Method }},
	"/definitions/http/properties/keepalive":              {httpT, "false", func(s *Scenario) any { return target(s).HTTP.Keepalive }},
	"/definitions/http/properties/timeout":                {httpT, `"5s"`, func(s *Scenario) any { return target(s).HTTP.Timeout }},
	"/definitions/http/properties/max_body":               {httpT, `"1MiB"`, func(s *Scenario) any { return target(s).HTTP.MaxBody }},
	"/definitions/http/properties/http2":                  {httpT, "true", func(s *Scenario) any { return target(s).HTTP.HTTP2 }},
	"/definitions/http/properties/connections":            {http2T, "4", func(s *Scenario) any { return target(s).HTTP.Connections }},
	"/definitions/http/properties/cookies":                {flowT, "true", func(s *Scenario) any { return target(s).HTTP.Flow.Cookies }},
	"/definitions/tls/properties/insecure_skip_verify":    {tlsT, "true", func(s *Scenario) any { return target(s).HTTP.TLS.InsecureSkipVerify }},
	"/definitions/tls/properties/resume":                  {tlsT, "false", func(s *Scenario) any { return target(s).HTTP.TLS.NoResume }},
	"/definitions/tls/properties/post_quantum":            {tlsT, "true", func(s *Scenario) any { return target(s).HTTP.TLS.PostQuantum }},
	"/definitions/step/properties/method":                 {stepT, "POST", func(s *Scenario) any { return target(s).HTTP.Flow.Steps[0].Method }},
	"/definitions/step/properties/think_time":             {stepT, `"1s"`, func(s *Scenario) any { return target(s).HTTP.Flow.Steps[0].ThinkTime }},
	"/definitions/request/properties/weight":              {reqT, "3", func(s *Scenario) any { return target(s).HTTP.Requests[0].Weight }},
	"/definitions/dataSource/properties/mode":             {dataT, "random", func(s *Scenario) any { return s.Data[0].Mode }},
	"/definitions/phase/properties/warmup":                {phaseT, "true", func(s *Scenario) any { return phase(s).Warmup }},
	"/definitions/phase/properties/concurrency":           {phaseT, "5", func(s *Scenario) any { return phase(s).Concurrency }},
	"/definitions/phase/properties/ramp_up":               {phaseT, `"1s"`, func(s *Scenario) any { return phase(s).RampUp }},
	"/definitions/phase/properties/think_time":            {phaseT, `"1s"`, func(s *Scenario) any { return phase(s).ThinkTime }},
	"/definitions/phase/properties/graceful_stop":         {phaseT, `"5s"`, func(s *Scenario) any { return phase(s).GracefulStop }},
	"/definitions/phase/properties/max_in_flight":         {openT, "50", func(s *Scenario) any { return phase(s).MaxInFlight }},
	"/definitions/phase/properties/trials":                {phaseT, "3", func(s *Scenario) any { return phase(s).Trials }},
	"/definitions/phase/properties/interleave":            {abT, "true", func(s *Scenario) any { return phase(s).Interleave }},
	"/definitions/search/properties/warmup":               {searchT, `"2s"`, func(s *Scenario) any { return phase(s).Search.ProbeWarmup }},
	"/definitions/search/properties/precision":            {searchT, `"10%"`, func(s *Scenario) any { return phase(s).Search.Precision }},
	"/definitions/search/properties/confirm":              {searchT, "2", func(s *Scenario) any { return phase(s).Search.Confirm }},
	"/definitions/search/properties/max_in_flight":        {searchT, "50", func(s *Scenario) any { return phase(s).Search.MaxInFlight }},
	"/definitions/threshold/anyOf/1/properties/severity":  {ruleT, "warn", func(s *Scenario) any { return s.Thresholds[0].Severity }},
	"/definitions/threshold/anyOf/1/properties/abort":     {ruleT, "true", func(s *Scenario) any { return s.Thresholds[0].Abort }},
}

// TestSchemaDefaultsAreLoadgates loads, for every property with a default,
// a scenario without the property and one that sets it to the schema's
// default, and checks that loadgate resolves both alike; a third, set to
// another value, resolves otherwise, so the comparison reads the property.
// Every default of the schema must be in schemaDefaults.
func TestSchemaDefaultsAreLoadgates(t *testing.T) {
	root := loadSchema(t)
	inSchema := map[string]any{}
	for _, p := range schemaProperties(root) {
		if d, ok := p.schema["default"]; ok {
			inSchema[p.ptr] = d
		}
	}
	for _, ptr := range slices.Sorted(maps.Keys(schemaDefaults)) {
		if _, ok := inSchema[ptr]; !ok {
			t.Errorf("%s: schemaDefaults checks a default the schema does not give", ptr)
		}
	}
	for _, ptr := range slices.Sorted(maps.Keys(inSchema)) {
		tc, ok := schemaDefaults[ptr]
		if !ok {
			t.Errorf("%s: the schema's default %s is checked against no resolved value; add it to schemaDefaults", ptr, literal(inSchema[ptr]))
			continue
		}
		t.Run(ptr, func(t *testing.T) {
			key := ptr[strings.LastIndex(ptr, "/")+1:]
			without := resolveWith(t, tc.tmpl, "")
			withDefault := resolveWith(t, tc.tmpl, key+": "+string(mustMarshal(t, inSchema[ptr])))
			if diff := cmp.Diff(tc.pick(without), tc.pick(withDefault)); diff != "" {
				t.Errorf("%s: %s resolves otherwise than leaving it out (-left out +default):\n%s", key, literal(inSchema[ptr]), diff)
			}
			if tc.other == "" {
				return
			}
			if cmp.Equal(tc.pick(without), tc.pick(resolveWith(t, tc.tmpl, key+": "+tc.other))) {
				t.Errorf("%s: %s resolves like the default; the check does not read the property", key, tc.other)
			}
		})
	}
}

// resolveWith loads template tmpl with entry (and a comma) at its @@, as
// a file of the valid corpus, so that relative paths find its files.
func resolveWith(t *testing.T, tmpl, entry string) *Scenario {
	t.Helper()
	if entry != "" {
		entry += ", "
	}
	src := strings.Replace(tmpl, "@@ ", entry, 1)
	sc, err := Parse(filepath.Join(corpus, "ok", "defaults.yaml"), []byte(src), LoadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return sc
}
