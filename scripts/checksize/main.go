// Command checksize fails when a non-test Go file of the module has more
// than 800 lines or a function more than 100: the size limits the code
// keeps so that a newcomer can read it (make test runs it).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	maxFileLines = 800
	maxFuncLines = 100
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	fset := token.NewFileSet()
	var problems []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// third_party holds other people's code as they wrote it (generated,
		// much of it), changed only where its notes say.
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "third_party" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			problems = append(problems, err.Error())
			return nil
		}
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			problems = append(problems, fmt.Sprintf("%s: %d lines (at most %d: split it by topic)", p, n, maxFileLines))
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				problems = append(problems, fmt.Sprintf("%s: func %s has %d lines (at most %d)", fset.Position(fd.Pos()), fd.Name.Name, n, maxFuncLines))
			}
		}
		return nil
	})
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}
