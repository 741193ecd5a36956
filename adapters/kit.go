package adapters

import (
	_ "embed"
	"fmt"
	"regexp"
)

// The kit's libraries, as a generated adapter gets a copy of them.
var (
	//go:embed python/modex_adapter.py
	pythonLib []byte
	//go:embed go/modexadapter.go
	goLib []byte
	//go:embed ts/modex_adapter.js
	jsLib []byte
	//go:embed ts/modex_adapter.d.ts
	jsTypes []byte
)

// packageClause is the Go library's package clause.
var packageClause = regexp.MustCompile(`(?m)^package modexadapter$`)

// GoKitAsMain is the Go library as a file of a package main (the copy a
// generated Go adapter, or a bundled sample, runs with go run).
func GoKitAsMain() []byte {
	return packageClause.ReplaceAll(goLib, []byte("package main"))
}

// Library returns the kit's library files for a language, by file name.
func Library(lang string) (map[string][]byte, error) {
	switch lang {
	case "python":
		return map[string][]byte{"modex_adapter.py": pythonLib}, nil
	case "go":
		return map[string][]byte{"modexadapter.go": GoKitAsMain()}, nil
	case "ts", "js":
		return map[string][]byte{"modex_adapter.js": jsLib, "modex_adapter.d.ts": jsTypes}, nil
	}
	return nil, fmt.Errorf("no adapter kit for %q", lang)
}
