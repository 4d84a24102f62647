package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// specificFlag maps a package directory to the pattern of its specific
// files' names: -specific 'scenarios=^(tcp|grpc)' -specific 'protocols/http1=^loop'.
type specificFlag map[string]*regexp.Regexp

func (s *specificFlag) String() string {
	if s == nil {
		return ""
	}
	var parts []string
	for dir, re := range *s {
		parts = append(parts, dir+"="+re.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func (s *specificFlag) Set(v string) error {
	dir, pattern, ok := strings.Cut(v, "=")
	if !ok || dir == "" || pattern == "" {
		return fmt.Errorf("want PKG=REGEXP, got %q", v)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if *s == nil {
		*s = specificFlag{}
	}
	(*s)[dir] = re
	return nil
}
