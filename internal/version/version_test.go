package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/loadgate/loadgate", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	tests := []struct {
		name  string
		stamp string
		bi    *debug.BuildInfo
		want  string
	}{
		{"stamp wins over everything", "v1.2.3", info("v9.9.9", "vcs.revision", rev, "vcs.modified", "true"), "v1.2.3"},
		{"stamped snapshot", "v0.0.1-snapshot+0123456", nil, "v0.0.1-snapshot+0123456"},
		{"no build information", "", nil, "dev"},
		{"go install of a tag", "", info("v1.2.3"), "v1.2.3"},
		{"go install of a pseudo-version", "", info("v0.0.0-20260101120000-0123456789ab"), "v0.0.0-20260101120000-0123456789ab"},
		{"devel without VCS", "", info("(devel)"), "dev"},
		{"empty main version", "", info(""), "dev"},
		{"checkout, clean", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "dev+0123456789ab"},
		{"checkout, dirty", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "dev+0123456789ab.dirty"},
		{"tagged checkout (Go 1.24+)", "", info("v1.2.3", "vcs.revision", rev, "vcs.modified", "false"), "v1.2.3+0123456789ab"},
		{"tagged checkout, dirty", "", info("v1.2.3+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v1.2.3+0123456789ab.dirty"},
		{"pseudo-version names its commit", "", info("v0.0.0-20260101120000-0123456789ab", "vcs.revision", rev), "v0.0.0-20260101120000-0123456789ab"},
		{"dirty pseudo-version", "", info("v0.0.0-20260101120000-0123456789ab+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v0.0.0-20260101120000-0123456789ab+dirty"},
		{"short revision kept whole", "", info("(devel)", "vcs.revision", "abc"), "dev+abc"},
		{"modified without revision", "", info("(devel)", "vcs.modified", "true"), "dev+dirty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.stamp, tc.bi); got != tc.want {
				t.Errorf("Resolve(%q, …) = %q, want %q", tc.stamp, got, tc.want)
			}
		})
	}
}

// A test binary has build information but no stamp and no VCS settings
// (go test does not record them), so String must not be empty and must
// agree with resolve on the same inputs.
func TestStringAgreesWithResolve(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	if got, want := String(), resolve(stamped, bi); got != want || got == "" {
		t.Errorf("String() = %q, Resolve = %q", got, want)
	}
}
