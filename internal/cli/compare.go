package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
)

// toleranceFlag reads a tolerance as a percentage ("5%") or a fraction
// ("0.05"). A bare number above 1 is refused: "--tolerance 5" almost
// certainly means 5 %, not 500 %.
type toleranceFlag float64

func (t *toleranceFlag) String() string {
	return strconv.FormatFloat(float64(*t)*100, 'f', -1, 64) + "%"
}

func (t *toleranceFlag) Set(s string) error {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Errorf("want a percentage such as 5%%, got %q", s)
	case f < 0:
		return fmt.Errorf("a tolerance cannot be negative, got %q", s)
	case pct:
		f /= 100
	case f > 1:
		return fmt.Errorf("%q is a fraction of %s%%; write %s%% for %s percent", s, strconv.FormatFloat(f*100, 'f', -1, 64), num, num)
	}
	*t = toleranceFlag(f)
	return nil
}

func compareCommand(args []string, env Env) error {
	tol := toleranceFlag(0.05)
	fs := newFlagSet("compare", env, "compare [flags] BASE.json NEW.json")
	out := fs.String("out", "", "write the Markdown to `FILE` instead of stdout (- = stdout)")
	fs.Var(&tol, "tolerance", "how much worse a metric may get before it counts as a regression, e.g. `5%`")
	strictEnv := fs.Bool("strict-env", envBool(env, "strict-env"), "exit 1 when the two were measured in different environments")
	failOnInconclusive := fs.Bool("fail-on-inconclusive", envBool(env, "fail-on-inconclusive"), "exit 1 when a judgement is inconclusive, or a case was not compared as its load changed")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(files) != 2 {
		fs.Usage()
		return withCode(ExitUsage, fmt.Errorf("compare: want two results files, BASE.json NEW.json; got %d", len(files)))
	}
	var runs [2]*results.Run
	for i, f := range files {
		if runs[i], err = results.ReadRunFile(f); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	c, err := assertions.Compare(runs[0], runs[1], assertions.CompareOptions{
		Tolerance: float64(tol), BaseName: files[0], NewName: files[1],
	})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	write := func(w io.Writer) error { return reporters.WriteCompare(w, c) }
	if err := writeTo(*out, env.Stdout, write); err != nil {
		return withCode(ExitRun, err)
	}
	regressed, inconclusive := c.Count(regression.Regressed), c.Count(regression.Inconclusive)
	summary := fmt.Sprintf("%d cases compared: %d regressed, %d inconclusive, %d passed",
		c.Cases()-c.Incomparable(), regressed, inconclusive, c.Count(regression.Pass))
	if n := c.Incomparable(); n > 0 {
		summary += fmt.Sprintf(", %d not compared as the load changed", n)
	}
	var problems []string
	if regressed > 0 {
		problems = append(problems, fmt.Sprintf("%d regressed", regressed))
	}
	if *failOnInconclusive && inconclusive > 0 {
		problems = append(problems, fmt.Sprintf("%d inconclusive (--fail-on-inconclusive)", inconclusive))
	}
	if n := c.Incomparable(); *failOnInconclusive && n > 0 {
		problems = append(problems, fmt.Sprintf("%d incomparable (--fail-on-inconclusive)", n))
	}
	if len(c.EnvDifferences) > 0 {
		fmt.Fprintln(env.Stderr, reporters.ConsoleText("loadgate: compare: different environments: "+strings.Join(c.EnvDifferences, "; ")))
		if *strictEnv {
			problems = append(problems, "different environments (--strict-env)")
		}
	}
	if len(problems) > 0 {
		return withCode(ExitFailed, errors.New("compare: "+summary+"; failing: "+strings.Join(problems, ", ")))
	}
	if *out != "" && *out != "-" {
		fmt.Fprintf(env.Stdout, "loadgate compare: %s; written to %s\n", summary, *out)
	}
	return nil
}
