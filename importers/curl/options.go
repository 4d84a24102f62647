package curl

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/loadgate/loadgate/importers/emit"
)

// An option of curl's command line and what importing does with it.
type option struct {
	long  string // without the dashes
	short byte   // 0 for none
	arg   bool   // takes a value
	// set records the option on the request; nil for an option that is
	// ignored (see ignoredWhy) or refused (see refusedWhy).
	set func(r *request, w Word) error
}

// options are the curl options an import understands. Their meaning
// follows curl's manual (curl 8): what curl would send is what the
// scenario sends.
var options = []option{
	{long: "request", short: 'X', arg: true, set: func(r *request, w Word) error { return r.setMethod(w) }},
	{long: "url", arg: true, set: func(r *request, w Word) error { return r.setURL(w) }},
	{long: "header", short: 'H', arg: true, set: func(r *request, w Word) error { return r.addHeader(w) }},
	{long: "data", short: 'd', arg: true, set: func(r *request, w Word) error { return r.addData(w, dataASCII) }},
	{long: "data-ascii", arg: true, set: func(r *request, w Word) error { return r.addData(w, dataASCII) }},
	{long: "data-binary", arg: true, set: func(r *request, w Word) error { return r.addData(w, dataBinary) }},
	{long: "data-raw", arg: true, set: func(r *request, w Word) error { return r.addData(w, dataRaw) }},
	{long: "data-urlencode", arg: true, set: func(r *request, w Word) error { return r.addData(w, dataURLEncode) }},
	{long: "json", arg: true, set: func(r *request, w Word) error { return r.addData(w, dataJSON) }},
	{long: "user", short: 'u', arg: true, set: func(r *request, w Word) error { return r.setUser(w) }},
	{long: "oauth2-bearer", arg: true, set: func(r *request, w Word) error { return r.setBearer(w) }},
	{long: "insecure", short: 'k', set: func(r *request, _ Word) error { r.insecure = true; return nil }},
	{long: "http2", set: func(r *request, _ Word) error { r.http2 = true; return nil }},
	{long: "http2-prior-knowledge", set: func(r *request, _ Word) error { r.http2 = true; r.priorKnowledge = true; return nil }},
	{long: "http1.1", set: func(r *request, _ Word) error { r.http2 = false; return nil }},
	{long: "user-agent", short: 'A', arg: true, set: func(r *request, w Word) error { return r.addImplied("User-Agent", w) }},
	{long: "referer", short: 'e', arg: true, set: func(r *request, w Word) error { return r.setReferer(w) }},
	{long: "cookie", short: 'b', arg: true, set: func(r *request, w Word) error { return r.setCookie(w) }},
	{long: "compressed", set: func(r *request, _ Word) error { r.compressed = true; return nil }},
	{long: "get", short: 'G', set: func(r *request, _ Word) error { r.get = true; return nil }},
	{long: "head", short: 'I', set: func(r *request, _ Word) error { r.head = true; return nil }},
	{long: "max-time", short: 'm', arg: true, set: func(r *request, w Word) error { return r.setMaxTime(w) }},

	// Harmless: they change what curl prints or keeps, not what it sends.
	{long: "silent", short: 's'},
	{long: "show-error", short: 'S'},
	{long: "verbose", short: 'v'},
	{long: "include", short: 'i'},
	{long: "fail", short: 'f'},
	{long: "fail-with-body"},
	{long: "progress-bar", short: '#'},
	{long: "no-progress-meter"},
	{long: "no-buffer", short: 'N'},
	{long: "globoff", short: 'g'},
	{long: "remote-name", short: 'O'},
	{long: "output", short: 'o', arg: true},
	{long: "write-out", short: 'w', arg: true},
	{long: "dump-header", short: 'D', arg: true},
	{long: "location", short: 'L'},
	{long: "connect-timeout", arg: true},
	{long: "retry", arg: true},
	{long: "retry-delay", arg: true},
	{long: "retry-max-time", arg: true},
	{long: "retry-connrefused"},
	{long: "retry-all-errors"},
	{long: "no-keepalive"},
	{long: "keepalive-time", arg: true},
	{long: "tcp-nodelay"},
	{long: "compressed-ssh"},
	{long: "disable", short: 'q'},
	{long: "cookie-jar", short: 'c', arg: true},
	{long: "junk-session-cookies", short: 'j'},

	// Understood, and refused: the scenario could not send the same.
	{long: "form", short: 'F', arg: true},
	{long: "form-string", arg: true},
	{long: "upload-file", short: 'T', arg: true},
	{long: "proxy", short: 'x', arg: true},
	{long: "cert", short: 'E', arg: true},
	{long: "key", arg: true},
	{long: "cacert", arg: true},
	{long: "config", short: 'K', arg: true},
	{long: "next", short: ':'},
	{long: "parallel", short: 'Z'},
	{long: "http3"},
	{long: "http3-only"},
	{long: "http1.0", short: '0'},
	{long: "unix-socket", arg: true},
	{long: "abstract-unix-socket", arg: true},
	{long: "resolve", arg: true},
	{long: "connect-to", arg: true},
	{long: "digest"},
	{long: "ntlm"},
	{long: "negotiate"},
	{long: "anyauth"},
	{long: "aws-sigv4", arg: true},
	{long: "netrc", short: 'n'},
	{long: "netrc-file", arg: true},
}

// ignoredWhy says, for the ignored options whose absence changes what is
// measured, what the scenario does instead; it goes into a comment.
var ignoredWhy = map[string]string{
	"location":        "loadgate does not follow redirects; a 3xx response counts as a success unless expect: says otherwise",
	"connect-timeout": "the target's timeout covers connecting too",
	"no-keepalive":    "it turns off TCP keep-alive probes, not connection reuse",
	"fail":            "a response of 400 or more is an error in loadgate anyway",
	"fail-with-body":  "a response of 400 or more is an error in loadgate anyway",
	"cookie-jar":      "cookies set by responses are not kept; a flow target with cookies: true keeps them per virtual user",
}

// refusedWhy says why an option cannot be imported.
var refusedWhy = map[string]string{
	"form":                 "multipart forms are not supported; send the encoded body with --data-binary @FILE and its Content-Type header",
	"form-string":          "multipart forms are not supported; send the encoded body with --data-binary @FILE and its Content-Type header",
	"upload-file":          "uploads are not supported; use --data-binary @FILE with -X PUT",
	"proxy":                "set proxy: on the target, or HTTP_PROXY / HTTPS_PROXY, by hand",
	"cert":                 "set tls: { cert_file, key_file } on the target by hand",
	"key":                  "set tls: { cert_file, key_file } on the target by hand",
	"cacert":               "set tls: { ca_file } on the target by hand",
	"config":               "options from a config file are not read; put them on the command line",
	"next":                 "give each request its own curl command",
	"parallel":             "concurrency is the scenario's: see the phases",
	"http3":                "HTTP/3 is not supported; --http2 is",
	"http3-only":           "HTTP/3 is not supported; --http2 is",
	"http1.0":              "HTTP/1.0 is not supported",
	"unix-socket":          "only TCP targets can be loaded",
	"abstract-unix-socket": "only TCP targets can be loaded",
	"resolve":              "name resolution is the system's; put the address in the URL and a Host header",
	"connect-to":           "name resolution is the system's; put the address in the URL and a Host header",
	"digest":               "only basic authentication (-u) is supported",
	"ntlm":                 "only basic authentication (-u) is supported",
	"negotiate":            "only basic authentication (-u) is supported",
	"anyauth":              "only basic authentication (-u) is supported",
	"aws-sigv4":            "request signing is not supported",
	"netrc":                "credentials from .netrc are not read; use -u",
	"netrc-file":           "credentials from .netrc are not read; use -u",
}

func longOption(name string) *option {
	i := slices.IndexFunc(options, func(o option) bool { return o.long == name })
	if i < 0 {
		return nil
	}
	return &options[i]
}

func shortOption(c byte) *option {
	i := slices.IndexFunc(options, func(o option) bool { return o.short == c })
	if i < 0 {
		return nil
	}
	return &options[i]
}

// parseCommand reads one curl command into a request.
func parseCommand(cmd Command) (*request, error) {
	for _, w := range cmd {
		if !utf8.ValidString(w.Text) {
			return nil, errorAt(w.Pos, "not UTF-8 text (a body of other bytes: save it to a file and give --data-binary @FILE)")
		}
	}
	r := &request{pos: cmd[0].Pos}
	args := cmd[1:]
	for len(args) > 0 {
		w := args[0]
		args = args[1:]
		var err error
		switch {
		case w.Text == "--":
			for _, u := range args {
				if err := r.setURL(u); err != nil {
					return nil, err
				}
			}
			args = nil
		case strings.HasPrefix(w.Text, "--"):
			args, err = r.long(w, args)
		case len(w.Text) > 1 && w.Text[0] == '-':
			args, err = r.shorts(w, args)
		default:
			err = r.setURL(w)
		}
		if err != nil {
			return nil, err
		}
	}
	if r.url == "" {
		return nil, errorAt(r.pos, "curl command without a URL")
	}
	return r, nil
}

// long handles --name [value].
func (r *request) long(w Word, args []Word) ([]Word, error) {
	name := w.Text[2:]
	o := longOption(name)
	if o == nil {
		return nil, unknownOption(w.Pos, w.Text)
	}
	var val Word
	if o.arg {
		if len(args) == 0 {
			return nil, errorAt(w.Pos, "%s needs a value", w.Text)
		}
		val, args = args[0], args[1:]
	}
	return args, r.apply(o, w, val)
}

// shorts handles -abc, -XPOST, -H value: single-letter options may be
// joined, and the last may take the rest of the word or the next word as
// its value, as curl reads them.
func (r *request) shorts(w Word, args []Word) ([]Word, error) {
	for i := 1; i < len(w.Text); i++ {
		at := w.at(i) // the letter in a cluster (-sZ), else the option (-Z)
		if i == 1 {
			at = w.Pos
		}
		o := shortOption(w.Text[i])
		if o == nil {
			return nil, unknownOption(at, "-"+w.Text[i:i+1])
		}
		flag := Word{Text: "-" + w.Text[i:i+1], Pos: at}
		if !o.arg {
			if err := r.apply(o, flag, Word{}); err != nil {
				return nil, err
			}
			continue
		}
		var val Word
		switch {
		case i+1 < len(w.Text):
			val = slice(w, i+1, len(w.Text))
		case len(args) > 0:
			val, args = args[0], args[1:]
		default:
			return nil, errorAt(at, "-%c needs a value", o.short)
		}
		return args, r.apply(o, flag, val)
	}
	return args, nil
}

func (r *request) apply(o *option, flag, val Word) error {
	if why, refused := refusedWhy[o.long]; refused {
		return errorAt(flag.Pos, "%s (--%s) cannot be imported: %s", flag.Text, o.long, why)
	}
	if o.set == nil {
		r.ignored = emit.AppendNew(r.ignored, o.long)
		return nil
	}
	if !o.arg || acceptsRefs(o.long) {
		return o.set(r, val)
	}
	if err := noRefs(val, flag.Text); err != nil {
		return err
	}
	return o.set(r, val)
}

// acceptsRefs: the options whose value may hold shell variables, which
// become scenario variables.
func acceptsRefs(long string) bool {
	switch long {
	case "header", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json",
		"user", "oauth2-bearer", "user-agent", "referer", "cookie", "url":
		return true
	}
	return false
}

func noRefs(w Word, what string) error {
	if len(w.Refs) > 0 {
		ref := w.Refs[0]
		return errorAt(ref.Pos, "%s: the shell variable %s cannot be kept here; replace it by its value", what, w.Text[ref.Off:ref.End])
	}
	return nil
}

// displayName is how an ignored option is listed: its short form if it
// has one, as people type it.
func displayName(o *option) string {
	if o.short != 0 {
		return "-" + string(o.short)
	}
	return "--" + o.long
}

func unknownOption(p Pos, name string) error {
	return errorAt(p, "unknown curl option %s (docs/import.md lists the options an import understands)", name)
}

// isCurl: the command's program is curl, by name or path.
func isCurl(w Word) bool {
	return len(w.Refs) == 0 && (w.Text == "curl" || path.Base(w.Text) == "curl" || w.Text == "curl.exe")
}
