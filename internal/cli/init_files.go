package cli

import (
	"net"
	"strings"
)

// The scenario loadgate init writes. Durations, trials and concurrency
// are variables, so a quick local try (--var duration=1s --var trials=2)
// needs no edit. The regression rules compare with the baseline the
// workflow passes; without one they are skipped, so a first run is
// judged by the absolute thresholds alone.
const initScenario = `# yaml-language-server: $schema=@SCHEMA@
# A first load test, written by loadgate init (docs/scenario.md).
#   loadgate run loadgate/@NAME@.yaml                                  # about 20 s
#   loadgate run loadgate/@NAME@.yaml --var duration=1s --var trials=2 # a quick look
# .github/workflows/loadgate.yml runs it on every push to main and pull request.
version: 1
name: @NAME@
description: @DESCRIPTION@

vars:
@VARS@  duration: 3s          # of each trial of the measured phase
  trials: "5"           # regressed() needs a few trials on each side to tell noise from change
  warmup: 2s
  concurrency: "8"      # clients, each sending its next request once answered
@SERVER@
targets:
  - name: @NAME@
    http:
      url: @URL@
      timeout: 5s
@EXPECT@
phases:
  - name: warmup
    warmup: true          # run and shown, never in results or rules
    duration: ${warmup}
    concurrency: ${concurrency}
  - name: measured
    duration: ${duration}
    concurrency: ${concurrency}
    trials: ${trials}

thresholds:
  - error_rate < 1%
  - p99 < 500ms
  # Against main's latest results, which the workflow passes as the baseline
  # to pull requests; skipped when there are none (a first run, or main), so
  # they never fail a build for want of a baseline. main and a pull request
  # run on different machines: hence the wide tolerances (docs/baselines.md).
  - { name: no throughput regression, rule: '!regressed("rps", 15%)' }
  - { name: no p99 regression, rule: '!regressed("p99", 50%)' }
`

// The built-in server block: the scenario starts loadgate serve, which
// stands in for the team's own server until they put theirs there.
const initServer = `
# The built-in server (docs/builtin-server.md) stands in for yours: put the
# command that starts your server here, and where it answers in ready and url.
# A server that runs elsewhere needs no server: block, only its url.
server:
  command: exec ${loadgate} serve --http 127.0.0.1:${port} --delay 2ms
  ready: { http: "http://127.0.0.1:${port}/health", timeout: 30s }
`

const initWorkflow = `# Load test on every push to main and every pull request, written by
# loadgate init (docs/github-actions.md). A push to main keeps its results as
# the baseline; a pull request is judged against the latest successful one
# and gets one comment with the verdict, edited in place on each new push.
name: loadgate

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

concurrency:
  group: loadgate-${{ github.ref }}
  cancel-in-progress: ${{ github.event_name == 'pull_request' }}

jobs:
  load:
    runs-on: ubuntu-latest
    timeout-minutes: 20
    permissions:
      contents: read
      actions: read # find main's latest run and download its results
      pull-requests: write # the pull-request comment
    steps:
      - uses: actions/checkout@v4
@START@
      - name: Load test
        id: loadgate
        uses: loadgate/loadgate@@REF@ # a release tag: installs that release's binary
        with:
          scenarios: loadgate/@NAME@.yaml
          # main keeps its results as the baseline; pull requests fetch it.
          artifact-name: ${{ github.event_name == 'push' && 'loadgate-baseline' || 'loadgate-results' }}
          baseline-artifact: loadgate-baseline
          comment: ${{ github.event_name == 'pull_request' }}
`

// A reminder in the workflow when the URL is on the runner itself: the
// server has to be started there first.
const initStartServer = `
      # The URL is on the runner: start the server under test first, e.g.
      # - name: Start the server under test
      #   run: |
      #     ./bin/my-server > "$RUNNER_TEMP/server.log" 2>&1 &
      #     curl -fsS --retry 30 --retry-connrefused --retry-delay 1 -o /dev/null '@URL@'
`

func (c initConfig) scenario() string {
	// One pass, so that text put in (a URL) is never replaced again.
	pairs := []string{
		"@SCHEMA@", schemaURL(),
		"name: @NAME@", "name: " + yamlString(c.name),
		"@NAME@", c.name,
		"@DESCRIPTION@", yamlString(escapeVars(c.description())),
	}
	if c.url == "" {
		pairs = append(pairs,
			"@VARS@", "  port: \"18080\"         # where the built-in server listens\n  loadgate: loadgate    # the command that runs loadgate (its server)\n",
			"@SERVER@", initServer,
			"@URL@", "http://127.0.0.1:${port}/",
			"@EXPECT@", "      expect: { status: [200], body_contains: hello }\n")
	} else {
		pairs = append(pairs,
			"@VARS@", "  url: "+yamlString(c.url)+"\n", // vars: are not expanded
			"@SERVER@", "",
			"@URL@", "${url}",
			"@EXPECT@", "      # any status from 200 to 399 passes; expect: { status: [200], body_contains: … } checks more\n")
	}
	return strings.NewReplacer(pairs...).Replace(initScenario)
}

func (c initConfig) description() string {
	what := "the built-in server"
	if c.url != "" {
		what = c.url
	}
	return "GET " + what + ", 8 clients, 5 trials, judged against main"
}

func (c initConfig) workflow() string {
	start := ""
	if c.url != "" && onLoopback(c.host) {
		start = initStartServer
	}
	// Two passes, the URL put in last, so that it is never replaced again.
	text := strings.NewReplacer("@START@\n", start, "@REF@", actionRef(), "@NAME@", c.name).Replace(initWorkflow)
	return strings.ReplaceAll(text, "@URL@", strings.ReplaceAll(c.url, "'", `'\''`))
}

func onLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// escapeVars writes a $ that loadgate would read as the start of a
// variable as $$.
func escapeVars(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$') {
			b.WriteByte('$')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
