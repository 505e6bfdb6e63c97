package main

import (
	"regexp"
	"strings"

	"github.com/orprof/orprof/internal/quote"
)

// flagErrorPatterns match the errors of the flag package, which quote the value without limit
// and name the flag with one dash.
var flagErrorPatterns = []struct {
	re     *regexp.Regexp
	render func(m []string) string
}{
	{regexp.MustCompile(`(?s)^flag provided but not defined: -(.*)$`),
		func(m []string) string { return "unknown flag --" + quote.Clip(m[1]) }},
	{regexp.MustCompile(`(?s)^flag needs an argument: -(.*)$`),
		func(m []string) string { return "--" + quote.Clip(m[1]) + " needs a value" }},
	{regexp.MustCompile(`(?s)^invalid boolean value "(.*)" for -([^:]*): .*$`),
		func(m []string) string {
			return "--" + quote.Clip(m[2]) + " " + quote.String(unquoteLoose(m[1])) + ": not a boolean (true or false)"
		}},
	{regexp.MustCompile(`(?s)^invalid value "(.*)" for (?:flag )?-([^:]*): (.*)$`),
		func(m []string) string {
			return "--" + quote.Clip(m[2]) + " " + quote.String(unquoteLoose(m[1])) + ": " + flagReason(m[3])
		}},
	{regexp.MustCompile(`(?s)^invalid boolean flag ([^:]*): (.*)$`),
		func(m []string) string { return "--" + quote.Clip(m[1]) + ": " + flagReason(m[2]) }},
	{regexp.MustCompile(`(?s)^bad flag syntax: (.*)$`),
		func(m []string) string { return "bad flag syntax " + quote.String(m[1]) }},
}

// flagErrorLine turns an error of fs.Parse into orprof's one line: "orprof CMD: what is wrong
// with which flag; run 'orprof CMD -h'". name is the flag set's name ("orprof run").
func flagErrorLine(name string, err error) string {
	msg := err.Error()
	what := ""
	for _, p := range flagErrorPatterns {
		if m := p.re.FindStringSubmatch(msg); m != nil {
			what = p.render(m)
			break
		}
	}
	if what == "" {
		what = quote.Clip(strings.ReplaceAll(msg, "\n", " "))
	}
	return name + ": " + what + "; run '" + name + " -h'"
}

// flagReason words the flag package's parse errors for a person.
func flagReason(s string) string {
	switch s {
	case "parse error":
		return "not a valid value for this flag"
	case "value out of range":
		return "out of range"
	}
	return quote.Clip(s)
}

// unquoteLoose undoes the %q the flag package applied to a value, as far as it can.
func unquoteLoose(s string) string {
	r := strings.NewReplacer(`\"`, `"`, `\\`, `\`)
	return r.Replace(s)
}
