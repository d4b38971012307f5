// SPDX-License-Identifier: Apache-2.0

package output

// dcbtop check's report as text and JUnit XML (Printer.Check).

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// SGR colours of the verdicts on a terminal.
var verdictColor = map[verdict.Verdict]string{
	verdict.OK:       "\x1b[32m",
	verdict.Warning:  "\x1b[1;33m",
	verdict.Critical: "\x1b[1;31m",
	verdict.Unknown:  "\x1b[35m",
}

// checkText prints the report for people: the verdict and its counts,
// then per interface a line per check, with the evidence and the fix of
// every check not OK. Strings from the wire are sanitized.
func checkText(w io.Writer, r check.Report, color bool) error {
	paint := func(v verdict.Verdict, s string) string {
		if !color {
			return s
		}
		return verdictColor[v] + s + "\x1b[m"
	}
	var counts [4]int
	for _, in := range r.Interfaces {
		for _, x := range in.Results {
			if int(x.Verdict) < len(counts) {
				counts[x.Verdict]++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dcbtop check: %s (%d ok, %d warning, %d critical, %d unknown on %d interface%s", paint(r.Verdict, r.Verdict.String()),
		counts[verdict.OK], counts[verdict.Warning], counts[verdict.Critical], counts[verdict.Unknown],
		len(r.Interfaces), map[bool]string{true: "", false: "s"}[len(r.Interfaces) == 1])
	if r.File != nil {
		fmt.Fprintf(&b, ", replay of %s", engine.Sanitize(*r.File))
	}
	switch r.Ended {
	case check.EndWait:
		b.WriteString(", judged at --wait")
	case check.EndAgent:
		b.WriteString(", from the running dcbtop")
	}
	b.WriteString(")\n")
	for _, in := range r.Interfaces {
		fmt.Fprintf(&b, "\n%s  %s\n", engine.Sanitize(in.Name), paint(in.Verdict, in.Verdict.String()))
		for _, x := range in.Results {
			fmt.Fprintf(&b, "  %s %-14s %s\n", paint(x.Verdict, fmt.Sprintf("%-8s", x.Verdict)), x.Check, engine.Sanitize(x.Summary))
			if x.Verdict == verdict.OK {
				continue
			}
			for _, e := range x.Evidence {
				fmt.Fprintf(&b, "  %-8s %-14s · %s\n", "", "", engine.Sanitize(e))
			}
			if x.Fix != "" {
				fmt.Fprintf(&b, "  %-8s %-14s → %s\n", "", "", engine.Sanitize(x.Fix))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JUnit XML, as CI systems read it (the Ant JUnit report format).
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Timestamp string      `xml:"timestamp,attr"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Failure   *junitFailure `xml:"failure"`
		Skipped   *junitFailure `xml:"skipped"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Type    string `xml:"type,attr,omitempty"`
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

// checkJUnit prints the report as JUnit XML: a test suite per interface,
// a test case per check; CRITICAL and WARNING are failures whose type is
// the verdict, UNKNOWN is skipped. Text goes through encoding/xml, which
// escapes it; sanitized first, since XML 1.0 cannot carry most control
// characters at all.
func checkJUnit(w io.Writer, r check.Report) error {
	all := junitSuites{Name: "dcbtop check"}
	for _, in := range r.Interfaces {
		s := junitSuite{Name: engine.Sanitize(in.Name), Timestamp: r.TakenAt.UTC().Format(time.RFC3339)}
		for _, x := range in.Results {
			detail := ""
			for _, e := range x.Evidence {
				detail += "evidence: " + engine.Sanitize(e) + "\n"
			}
			if x.Fix != "" {
				detail += "fix: " + engine.Sanitize(x.Fix) + "\n"
			}
			c := junitCase{Name: string(x.Check), Classname: "dcbtop.check." + engine.Sanitize(in.Name)}
			f := &junitFailure{Type: x.Verdict.String(), Message: engine.Sanitize(x.Summary), Text: detail}
			switch x.Verdict {
			case verdict.Critical, verdict.Warning:
				c.Failure = f
				s.Failures++
			case verdict.Unknown:
				c.Skipped = f
				s.Skipped++
			default:
				c.SystemOut = "OK: " + engine.Sanitize(x.Summary) + "\n" + detail
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
