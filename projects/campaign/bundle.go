package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds of a project bundle (it is untrusted input for a worker).
const (
	maxBundleFiles = 500
	maxBundleBytes = 32 << 20
)

// bundle is a project's folder, travelling with a campaign: file paths
// (slash-separated, relative) and contents.
type bundle struct {
	Project string            `json:"project"` // the project file's path in the bundle
	Files   map[string][]byte `json:"files"`
}

// makeBundle reads the regular files of the project's folder (hidden ones
// and folders left out), within the bounds, and returns the bundle's bytes
// and its hash.
func makeBundle(projectFile string) ([]byte, string, error) {
	dir := filepath.Dir(projectFile)
	b := bundle{Project: filepath.Base(projectFile), Files: map[string][]byte{}}
	total := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		total += len(data)
		if len(b.Files) >= maxBundleFiles || total > maxBundleBytes {
			return fmt.Errorf("the project's folder %s holds more than %d files or %d MiB: too much to send to workers", dir, maxBundleFiles, maxBundleBytes>>20)
		}
		rel, _ := filepath.Rel(dir, path)
		b.Files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	data, err := json.Marshal(&b)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

// extracted returns the project file of a bundle already extracted under
// dir.
func extracted(dir, hash string) (string, bool) {
	root := filepath.Join(dir, hash)
	data, err := os.ReadFile(filepath.Join(root, ".modex-project"))
	if err != nil {
		return "", false
	}
	rel := filepath.Clean(filepath.FromSlash(string(data)))
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	path := filepath.Join(root, rel)
	if _, err := os.Stat(path); err != nil {
		return "", false
	}
	return path, true
}

// extractBundle checks a bundle against its hash and writes it under dir
// (once: an existing copy is reused), returning the project file's path.
// Paths that would leave dir are refused.
func extractBundle(data []byte, hash, dir string) (string, error) {
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != hash {
		return "", fmt.Errorf("the project bundle does not match its hash %s", hash)
	}
	if len(data) > 2*maxBundleBytes {
		return "", fmt.Errorf("the project bundle is larger than %d MiB", 2*maxBundleBytes>>20)
	}
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return "", fmt.Errorf("not a project bundle: %v", err)
	}
	if len(b.Files) > maxBundleFiles {
		return "", fmt.Errorf("the project bundle holds more than %d files", maxBundleFiles)
	}
	root := filepath.Join(dir, hash)
	project := filepath.Join(root, filepath.FromSlash(b.Project))
	if _, err := os.Stat(project); err == nil {
		return project, nil
	}
	tmp, err := os.MkdirTemp(dir, "."+hash[:12]+".tmp*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	names := make([]string, 0, len(b.Files))
	for name := range b.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		clean := filepath.Clean(filepath.FromSlash(name))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("the project bundle names a file outside its folder: %q", name)
		}
		path := filepath.Join(tmp, clean)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, b.Files[name], 0o644); err != nil {
			return "", err
		}
	}
	if _, ok := b.Files[b.Project]; !ok {
		return "", fmt.Errorf("the project bundle lacks its project file %q", b.Project)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".modex-project"), []byte(b.Project), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(project); statErr != nil {
			return "", err
		}
	}
	return project, nil
}
