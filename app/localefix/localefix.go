// Package localefix runs before Fyne's lang package initialises (its import
// path sorts before fyne.io, and Go initialises ready packages in import-path
// order). Under the C/POSIX locale Fyne logs "Error parsing user locale C" on
// every start; setting LANGUAGE=en (which only chooses message translations)
// keeps headless commands' output clean.
package localefix

import (
	"os"
	"strings"
)

func init() {
	if os.Getenv("LANGUAGE") != "" {
		return
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		base := strings.SplitN(v, ".", 2)[0]
		if base == "C" || base == "POSIX" {
			os.Setenv("LANGUAGE", "en")
		}
		return
	}
}
