package protocols

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/scenarios"
)

var errNoPong = errors.New(`reply does not contain "+PONG"`)

func TestStepErrorMessage(t *testing.T) {
	long := strings.Repeat("a", 100)
	tests := []struct {
		name string
		fill func(e *StepError) error
		want string
	}{
		{
			name: "a reply that fails the check",
			fill: func(e *StepError) error {
				return e.Fail("step 2 (expect)", errNoPong, []byte("-ERR unknown command\r\n"))
			},
			want: `step 2 (expect): reply does not contain "+PONG": got "-ERR unknown command\r\n"`,
		},
		{
			// Nothing worth showing came: no "got".
			name: "nothing received",
			fill: func(e *StepError) error { return e.Fail("on_connect step 1 (expect)", io.EOF, nil) },
			want: `on_connect step 1 (expect): EOF`,
		},
		{
			name: "an empty reply",
			fill: func(e *StepError) error { return e.Fail("step 3 (expect)", errNoPong, []byte{}) },
			want: `step 3 (expect): reply does not contain "+PONG": got ""`,
		},
		{
			// The caller (the engine, for a flow) names the step.
			name: "a refused status, unnamed",
			fill: func(e *StepError) error { return e.FailStatus("", 401, []byte(`{"error":"bad token"}`)) },
			want: `unexpected status 401: got "{\"error\":\"bad token\"}"`,
		},
		{
			name: "cut at 64 bytes",
			fill: func(e *StepError) error { return e.Fail("step 1 (expect)", errNoPong, []byte(long)) },
			want: `step 1 (expect): reply does not contain "+PONG": got "` + long[:64] + `"…`,
		},
		{
			name: "binary",
			fill: func(e *StepError) error { return e.Fail("step 1 (expect)", errNoPong, []byte{0, 1, 0xff, 'o', 'k'}) },
			want: `step 1 (expect): reply does not contain "+PONG": got "\x00\x01\xffok"`,
		},
		{
			// é is two bytes, the second past the 64 kept: it is left out,
			// not shown as half a character.
			name: "a character cut in two",
			fill: func(e *StepError) error {
				return e.Fail("step 1 (expect)", errNoPong, []byte(long[:63]+"é and more"))
			},
			want: `step 1 (expect): reply does not contain "+PONG": got "` + long[:63] + `"…`,
		},
		{
			// Bytes the caller itself kept to 64, of a longer body.
			name: "truncated by the caller",
			fill: func(e *StepError) error {
				err := e.FailStatus("", 503, []byte("busy"))
				e.Truncated()
				return err
			},
			want: `unexpected status 503: got "busy"…`,
		},
	}
	var e StepError // one error, refilled, as a client keeps it
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fill(&e)
			if got := err.Error(); got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestStepErrorUnwraps(t *testing.T) {
	var e StepError
	if err := e.Fail("step 1 (expect)", io.ErrUnexpectedEOF, []byte("+PO")); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v does not unwrap to io.ErrUnexpectedEOF", err)
	}
}

// TestStepErrorFailDoesNotAllocate: a failing step costs a copy of at most
// 64 bytes, never an allocation; only Error, once per kind and phase in
// the engine, words the message.
func TestStepErrorFailDoesNotAllocate(t *testing.T) {
	var e StepError
	reply := []byte(strings.Repeat("-ERR ", 40))
	var err error
	allocs := testing.AllocsPerRun(1000, func() {
		err = e.Fail("step 2 (expect)", errNoPong, reply)
		err = e.FailStatus("", 500, reply[:10])
	})
	if allocs != 0 || err == nil {
		t.Errorf("filling a step failure allocates %v times", allocs)
	}
}

func TestRedactSample(t *testing.T) {
	secrets := scenarios.NewRedactor("s3cr3t-t0ken", `pa"ss\word`, "abcdefghijklmnopqrstuvwxyz0123456789-a-long-api-key")
	tests := []struct {
		name, msg, want string
	}{
		{"no secret", `step 1 (expect): EOF`, `step 1 (expect): EOF`},
		{"outside the quotes", `dial s3cr3t-t0ken: refused`, `dial REDACTED: refused`},
		{"in the bytes shown", `step 2 (expect): x: got "token=s3cr3t-t0ken\r\n"`, `step 2 (expect): x: got "token=REDACTED\r\n"`},
		{
			// Quoted, the secret reads pa\"ss\\word: read back, it matches.
			name: "escaped by the quotes",
			msg:  `step 2 (expect): x: got "{\"pw\":\"pa\"ss\\word\"}"`,
			want: `step 2 (expect): x: got "{\"pw\":\"REDACTED\"}"`,
		},
		{
			// The cut left the key's first 20 bytes: they go too.
			name: "cut by the end of what is shown",
			msg:  `unexpected status 401: got "{\"key\":\"abcdefghijklmnopqrst"…`,
			want: `unexpected status 401: got "{\"key\":\"REDACTED"…`,
		},
		{
			// Without a cut, the same ending is the whole reply: kept.
			name: "a secret's beginning, not cut",
			msg:  `unexpected status 401: got "abcdefghijklmnopqrst"`,
			want: `unexpected status 401: got "abcdefghijklmnopqrst"`,
		},
		{
			// Fewer than 4 bytes of a long secret at a cut are kept: they
			// end too many replies to mean anything.
			name: "three bytes at a cut",
			msg:  `unexpected status 401: got "x abc"…`,
			want: `unexpected status 401: got "x abc"…`,
		},
		{
			name: "two quoted parts",
			msg:  `got "s3cr3t-t0ken" then got "also s3cr3t-t0ken"`,
			want: `got "REDACTED" then got "also REDACTED"`,
		},
		{"an unterminated quote", `got "s3cr3t-t0ken`, `got "REDACTED`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactSample(tt.msg, secrets); got != tt.want {
				t.Errorf("RedactSample =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	if got := RedactSample(`got "s3cr3t-t0ken"`, nil); got != `got "s3cr3t-t0ken"` {
		t.Errorf("without secrets, RedactSample changed the message: %s", got)
	}
}

// FuzzRedactSample: whatever the message, no secret survives redaction,
// inside the quoted bytes or outside them.
func FuzzRedactSample(f *testing.F) {
	secrets := scenarios.NewRedactor("s3cr3t-t0ken", `pa"ss\word`)
	for _, seed := range []string{
		`step 2 (expect): x: got "s3cr3t-t0ken"`,
		`got "pa\"ss\\word"…`,
		`got "\x73\x33cr3t-t0ken"`,
		`got "s3cr3t-t0"…`,
		`got "unterminated`,
		`got ""got "" got "s3cr3t-t0ken`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := RedactSample(msg, secrets)
		for _, s := range secrets {
			if strings.Contains(got, s) {
				t.Errorf("RedactSample(%q) = %q keeps the secret %q", msg, got, s)
			}
		}
	})
}
