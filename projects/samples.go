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
//go:embed chat/*.star chat/*.toml chat/*.md bag/*.star bag/*.toml bag/*.md webshop stack switch
var Samples embed.FS

// SampleNames lists the bundled samples.
func SampleNames() []string { return []string{"chat", "webshop", "stack", "switch", "bag"} }

// ExtractSample copies a bundled sample into dir/name (overwriting older
// copies of its files) and returns the path of its project file.
func ExtractSample(name, dir string) (string, error) {
	sub, err := fs.Sub(Samples, name)
	if err != nil {
		return "", err
	}
	entries, err := fs.ReadDir(sub, ".")
	if err != nil || len(entries) == 0 {
		return "", fmt.Errorf("no bundled sample %q", name)
	}
	target := filepath.Join(dir, name)
	if err := os.MkdirAll(target, 0o755); err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(sub, e.Name())
		if err != nil {
			return "", err
		}
		if err := WriteFileAtomic(filepath.Join(target, e.Name()), data); err != nil {
			return "", err
		}
	}
	return filepath.Join(target, name+".toml"), nil
}
