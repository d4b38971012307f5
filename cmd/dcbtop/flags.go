package main

import (
	"errors"
	"flag"
	"regexp"
	"strings"
	"time"
)

// durationFlag defines a duration flag whose error shows the form
// wanted (Go's says "parse error").
func durationFlag(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Func(name, usage, func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil {
			return errors.New("want a duration like 5s or 2m")
		}
		*p = d
		return nil
	})
}

// flagNameRE finds the flag a Go flag error names ("-bogus").
var flagNameRE = regexp.MustCompile(`(?:defined: |argument: |for flag )-([A-Za-z0-9][-A-Za-z0-9]*)`)

// parseFlags parses args with fs; a flag error names the flag as it was
// typed (--bogus, not -bogus) and the help request stays flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if m := flagNameRE.FindStringSubmatch(msg); m != nil {
		typed := "-" + m[1]
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--"+m[1] || strings.HasPrefix(a, "--"+m[1]+"=") {
				typed = "--" + m[1]
				break
			}
		}
		msg = strings.Replace(msg, "-"+m[1], typed, 1)
		msg = strings.Replace(msg, "flag provided but not defined: ", "unknown flag ", 1)
	}
	return errors.New(msg)
}
