package projects

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Samples holds the bundled sample projects, one folder each.
//
//go:embed chat/*.star chat/*.toml chat/*.md chat/impl/*.go chat/impl/*.py
//go:embed bag/*.star bag/*.toml bag/*.md bag/impl/*.go
//go:embed conference/*.star conference/*.toml conference/*.md conference/impl/*.go
//go:embed threadpool/*.star threadpool/*.toml threadpool/*.md threadpool/impl/*.go threadpool/traces
//go:embed webshop stack switch register kv
var Samples embed.FS

// SampleNames lists the bundled samples.
func SampleNames() []string {
	return []string{"chat", "webshop", "stack", "switch", "bag", "threadpool", "conference", "register", "kv"}
}

// ExtractSample copies a bundled sample into dir/name (overwriting older
// copies of its files) and returns the path of its project file.
func ExtractSample(name, dir string) (string, error) {
	sub, err := fs.Sub(Samples, name)
	if err != nil {
		return "", err
	}
	if entries, err := fs.ReadDir(sub, "."); err != nil || len(entries) == 0 {
		return "", fmt.Errorf("no bundled sample %q", name)
	}
	target := filepath.Join(dir, name)
	err = fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out := filepath.Join(target, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := fs.ReadFile(sub, path)
		if err != nil {
			return err
		}
		return WriteFileAtomic(out, data)
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(target, name+".toml"), nil
}
