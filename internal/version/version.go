// Package version says which loadgate this binary is. Every output that
// names the version (loadgate version, the summary header, results.json's
// loadgate_version, JUnit properties, the environment fingerprint that
// --strict-env compares) takes it from String, so they cannot disagree.
package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// stamped is set at link time by release builds (.goreleaser.yaml):
//
//	-ldflags "-X github.com/loadgate/loadgate/internal/version.stamped=v1.2.3"
var stamped string

// dev is the version of a build that knows nothing about itself: no stamp,
// no module version, no VCS information.
const dev = "dev"

var resolved = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return resolve(stamped, bi)
})

// String returns this binary's version: the link-time stamp when there is
// one, else what the build information says.
func String() string { return resolved() }

// resolve picks the version from a link-time stamp and the build
// information (nil when the binary has none). A stamp wins: it is what the
// release was tagged as. Else the main module's version, which
// `go install …@v1.2.3` records ("dev" when Go recorded none, as for a
// `go build` in a checkout before Go 1.24), with the VCS revision (12 hex
// digits) and a dirty flag that `go build` in a checkout records, as
// semver build metadata: v1.2.3+0123456789ab, dev+0123456789ab.dirty. A
// pseudo-version already names its commit, so the revision is not repeated.
func resolve(stamp string, bi *debug.BuildInfo) string {
	if stamp != "" {
		return stamp
	}
	if bi == nil {
		return dev
	}
	var revision string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	base := bi.Main.Version
	if base == "" || base == "(devel)" {
		base = dev
	}
	// Go marks a version it derived from a dirty tree with +dirty (1.24+);
	// the flag is put back after the revision.
	if b, ok := strings.CutSuffix(base, "+dirty"); ok {
		base, modified = b, true
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if revision != "" && !strings.Contains(base, revision) {
		base = addMeta(base, revision)
	}
	if modified {
		base = addMeta(base, "dirty")
	}
	return base
}

// addMeta appends one identifier to v's semver build metadata.
func addMeta(v, ident string) string {
	if strings.Contains(v, "+") {
		return v + "." + ident
	}
	return v + "+" + ident
}
