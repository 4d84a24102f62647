package scenarios

import "strings"

// word is one value of a field that accepts a closed set of words, and
// what the field then holds. Each set is a list, not a switch, so that the
// schema's enum of the field can be compared with it and never drift.
type word[T any] struct {
	text  string
	value T
}

// The closed sets of words, in the order messages list them.
var (
	connectionWords = []word[TCPConnection]{{"persistent", Persistent}, {"per_iteration", PerIteration}}
	dataFormatWords = []word[DataFormat]{{"csv", DataCSV}, {"jsonl", DataJSONLines}}
	dataModeWords   = []word[DataMode]{{"sequential", DataSequential}, {"random", DataRandom}, {"unique", DataUnique}}
	exhaustedWords  = []word[DataExhausted]{{"stop", ExhaustedStop}, {"recycle", ExhaustedRecycle}}
	severityWords   = []word[Severity]{{string(SeverityFail), SeverityFail}, {string(SeverityWarn), SeverityWarn}}
	// streamWords: a server-streaming call, or a unary one.
	streamWords = []word[bool]{{"unary", false}, {"server", true}}
	// untilWords: when adaptive trials stop being added.
	untilWords = []word[struct{}]{{"decisive", struct{}{}}}
)

// findWord finds s among words.
func findWord[T any](words []word[T], s string) (T, bool) {
	for _, w := range words {
		if w.text == s {
			return w.value, true
		}
	}
	var zero T
	return zero, false
}

// expected renders words for a message: "a", "a or b", "a, b or c".
func expected[T any](words []word[T]) string {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.text
	}
	if len(texts) < 2 {
		return strings.Join(texts, "")
	}
	return strings.Join(texts[:len(texts)-1], ", ") + " or " + texts[len(texts)-1]
}
