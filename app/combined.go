package main

import (
	"strings"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
)

// CombinedWords is a line per action whose parameters the configuration
// combines pairwise or n-wise, each after a newline: how many
// combinations it tries against the full product of its domains, as
// evaluated in the initial state ("Post: pairwise, 113 of 10,000 parameter
// combinations (at the initial state)"); "" when none is combined, or
// when the model has no initial state to evaluate them in (the exploration
// reports why).
func CombinedWords(m model.Model, cfg *explore.Config) string {
	cs, err := explore.CombinedInputs(m, cfg)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("\n" + safetext.Term(c.String()) + " (at the initial state)")
	}
	return b.String()
}
