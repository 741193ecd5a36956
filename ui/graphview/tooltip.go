package graphview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modex/modex/graph"
)

// StateTooltip is the text shown when hovering a state: its id, label and
// flags, then its variables pretty-printed.
func StateTooltip(s *graph.State) string {
	var b strings.Builder
	flags := []string{s.Kind}
	if s.Initial {
		flags = append(flags, "initial")
	}
	if s.Accepting {
		flags = append(flags, "accepting")
	}
	if s.Frontier {
		flags = append(flags, "frontier: not explored further")
	}
	if s.Rim {
		flags = append(flags, "more transitions outside this view")
	}
	if from, ok := strings.CutPrefix(s.ID, graph.FoldPrefix); ok { // a path view's folded moves: no state of their own
		fmt.Fprintf(&b, "%s of %s, folded (click %s to follow one)", s.Label, from, from)
		for _, v := range s.Vars {
			fmt.Fprintf(&b, "\n%s. %s", v.Name, graph.Pretty(v.Value, 60))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s  (%s)", s.ID, strings.Join(flags, ", "))
	if s.Label != s.ID {
		fmt.Fprintf(&b, "\nlabel: %s", graph.Pretty(s.Label, 60))
	}
	if s.Count > 0 {
		fmt.Fprintf(&b, "\n%s in this class", CountWords(s.Count))
	}
	if s.Error != "" {
		fmt.Fprintf(&b, "\nerror: %s", WrapText(strings.SplitN(s.Error, "\n", 2)[0], 70, "       "))
	}
	for _, v := range s.Vars {
		fmt.Fprintf(&b, "\n%s = %s", v.Name, graph.Pretty(v.Value, 60))
	}
	return b.String()
}

// WrapText breaks s into lines of at most width characters at spaces,
// indenting continuation lines.
func WrapText(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if line+1+len(w) > width {
				b.WriteString("\n" + indent)
				line = len(indent)
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// CountWords says how many states a class holds: "1 state", "60 states".
func CountWords(n int) string {
	if n == 1 {
		return "1 state"
	}
	return strconv.Itoa(n) + " states"
}
