// Command structure measures how the code is laid out, from its syntax
// alone: what a newcomer meets when following a noun through the packages.
// It prints, for the production files (tests and testdata left out):
//
//   - per package: files, lines, the packages of this module it imports,
//     and the JSON tags it declares (the results.json vocabulary belongs in
//     results/ alone);
//
//   - references that cross files inside a package: uses in one file of a
//     name (function, type, variable, constant or method) that another file
//     of the package defines; with -specific, those that go from a general
//     file into a specific one, the direction a reader should never have to
//     walk;
//
//   - functions over -func-lines and files over -file-lines lines;
//
//   - exported names that no other package of the module uses, tests
//     included.
//
//     go run ./bench/structure                     # the whole module
//     go run ./bench/structure -specific 'scenarios=^(tcp|grpc|websocket|target|flow|server|search|data)'
//
// It reads names, not types: a method is matched by its name, so two
// methods of one name in different files count as both. The figures are
// for comparing the layout before and after a change, not for a gate.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("structure", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the module's root directory")
	funcLines := fs.Int("func-lines", 80, "list functions longer than this many lines")
	fileLines := fs.Int("file-lines", 500, "list files longer than this many lines")
	var specific specificFlag
	fs.Var(&specific, "specific", "PKG=REGEXP: files of PKG (a path under the module) whose names match REGEXP are specific; repeatable")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mod, err := readModule(*root)
	if err != nil {
		fmt.Fprintln(stderr, "structure:", err)
		return 1
	}
	refs, err := typedRefs(*root, mod.path)
	if err != nil {
		fmt.Fprintln(stderr, "structure:", err)
		return 1
	}
	report(stdout, mod, refs, *funcLines, *fileLines, specific)
	return 0
}

func report(w io.Writer, mod *module, refsByDir map[string][]crossRef, funcLines, fileLines int, specific specificFlag) {
	fmt.Fprintf(w, "# Structure of %s\n\n", mod.path)
	fmt.Fprintln(w, "| package | files | lines | JSON tags | cross-file references | general → specific | imports |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|")
	var tags, long, big int
	for _, p := range mod.packages {
		refs := refsByDir[p.dir]
		toSpecificCount := "–"
		if re, ok := specific[p.dir]; ok {
			toSpecificCount = fmt.Sprint(len(toSpecific(refs, re)))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %s |\n", p.dir, len(p.files), p.lines(), p.jsonTags,
			len(refs), toSpecificCount, strings.Join(mod.localImports(p), " "))
		if p.dir != "results" {
			tags += p.jsonTags
		}
	}
	fmt.Fprintf(w, "\nJSON tags outside results/: %d\n", tags)

	fmt.Fprintf(w, "\n## Functions over %d lines\n\n", funcLines)
	for _, f := range mod.longFuncs(funcLines) {
		fmt.Fprintf(w, "- %s %s: %d\n", f.file, f.name, f.lines)
		long++
	}
	fmt.Fprintf(w, "\n%d functions\n", long)

	fmt.Fprintf(w, "\n## Files over %d lines\n\n", fileLines)
	for _, p := range mod.packages {
		for _, f := range p.files {
			if f.lines > fileLines {
				fmt.Fprintf(w, "- %s: %d\n", f.path, f.lines)
				big++
			}
		}
	}
	fmt.Fprintf(w, "\n%d files\n", big)

	unused := mod.exportedUnusedElsewhere()
	fmt.Fprintf(w, "\n## Exported names no other package uses: %d\n\n", len(unused))
	for _, u := range unused {
		fmt.Fprintf(w, "- %s\n", u)
	}

	for _, p := range mod.packages {
		if re, ok := specific[p.dir]; ok {
			fmt.Fprintf(w, "\n## %s: references from general files into specific ones\n\n", p.dir)
			for _, r := range toSpecific(refsByDir[p.dir], re) {
				fmt.Fprintf(w, "- %s → %s (%s)\n", r.from, r.to, r.name)
			}
		}
	}
}
