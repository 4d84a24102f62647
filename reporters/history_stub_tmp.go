package reporters

import (
	"io"

	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
)

type HistoryOptions struct {
	Options   changepoint.Options
	Commits   func(good, firstChanged *history.Entry) (int, bool)
	CommitURL func(sha string) string
}

func WriteHistory(w io.Writer, as []*history.Analysis, o HistoryOptions) error     { return nil }
func WriteHistoryHTML(w io.Writer, as []*history.Analysis, o HistoryOptions) error { return nil }
func WriteHistoryExport(w io.Writer, series []*history.Series, format string) error {
	return nil
}
