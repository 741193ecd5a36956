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

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

// Bounds of a project bundle (it is untrusted input for a worker).
const (
	maxBundleFiles = 500
	maxBundleBytes = 32 << 20
	// maxBundleObject bounds the object a worker reads: the files and
	// their JSON encoding (base64 makes bytes a third larger).
	maxBundleObject = 2 * maxBundleBytes
)

// bundle is what of a project travels with a campaign: the project file,
// its model and the .star files the model may load (load() reaches only
// .star files in the model's folder), by slash-separated relative paths.
// Nothing else of the project's folder goes: not its implementation, its
// scripts, its traces or a key lying there. A worker treats it as data:
// the project's [adapter] section is never used there.
type bundle struct {
	Project string            `json:"project"` // the project file's path in the bundle
	Files   map[string][]byte `json:"files"`
}

// makeBundle reads the project's files, within the bounds, and returns the
// bundle's bytes and its hash.
func makeBundle(projectFile string) ([]byte, string, error) {
	p, err := projects.Load(projectFile)
	if err != nil {
		return nil, "", err
	}
	if filepath.IsAbs(p.Model) {
		return nil, "", fmt.Errorf("%s names its model by an absolute path (%s): a campaign sends the model with the project, so name it relative to the project file", projectFile, p.Model)
	}
	projDir, err := filepath.Abs(filepath.Dir(projectFile))
	if err != nil {
		return nil, "", err
	}
	modelPath := filepath.Join(projDir, filepath.FromSlash(p.Model))
	modelDir := filepath.Dir(modelPath)
	root := commonDir(projDir, modelDir)
	b := bundle{Files: map[string][]byte{}}
	total := 0
	add := func(path string) error {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if _, ok := b.Files[rel]; ok {
			return nil
		}
		data, err := model.ReadFileLimited(path, maxBundleBytes)
		if err != nil {
			return err
		}
		total += len(data)
		if len(b.Files) >= maxBundleFiles || total > maxBundleBytes {
			return fmt.Errorf("the project's model and the .star files beside it are more than %d files or %d MiB: too much to send to workers", maxBundleFiles, maxBundleBytes>>20)
		}
		b.Files[rel] = data
		return nil
	}
	abs, err := filepath.Abs(projectFile)
	if err != nil {
		return nil, "", err
	}
	if err := add(abs); err != nil {
		return nil, "", err
	}
	b.Project, _ = filepath.Rel(root, abs)
	b.Project = filepath.ToSlash(b.Project)
	if err := add(modelPath); err != nil {
		return nil, "", fmt.Errorf("the project's model: %w", err)
	}
	// The files the model may load: .star files in its folder and below
	// (hidden ones left out).
	err = filepath.WalkDir(modelDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != modelDir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".star") {
			return add(path)
		}
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

// commonDir is the deepest folder holding both a and b (absolute, clean).
func commonDir(a, b string) string {
	for {
		if rel, err := filepath.Rel(a, b); err == nil && !escapes(rel) {
			return a
		}
		parent := filepath.Dir(a)
		if parent == a {
			return a
		}
		a = parent
	}
}

// escapes tells whether a relative, clean path leaves its folder.
func escapes(rel string) bool {
	return filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// bundleName checks a name in a bundle: relative, slash-separated, staying
// inside the bundle, naming no hidden file.
func bundleName(name string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if name == "" || filepath.IsAbs(clean) || escapes(clean) || filepath.VolumeName(clean) != "" || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("the project bundle names a file outside its folder: %q", cut(name, 80))
	}
	for _, part := range strings.Split(filepath.ToSlash(clean), "/") {
		if strings.HasPrefix(part, ".") {
			return "", fmt.Errorf("the project bundle names a hidden file: %q", cut(name, 80))
		}
	}
	return clean, nil
}

// validHash tells whether s is a SHA-256 hash in hex (a bundle's name).
func validHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// extracted returns the project file of a bundle already extracted under
// dir.
func extracted(dir, hash string) (string, bool) {
	root := filepath.Join(dir, hash)
	data, err := model.ReadFileLimited(filepath.Join(root, ".modex-project"), 4096)
	if err != nil {
		return "", false
	}
	rel, err := bundleName(string(data))
	if err != nil {
		return "", false
	}
	path := filepath.Join(root, rel)
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return path, true
}

// extractBundle checks a bundle against its hash and writes it under dir
// (once: an existing copy is reused), returning the project file's path.
// Names that would leave dir, hidden names and a project file that is not
// among the files are refused.
func extractBundle(data []byte, hash, dir string) (string, error) {
	if !validHash(hash) {
		return "", fmt.Errorf("%q is not a bundle's hash", cut(hash, 70))
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != hash {
		return "", fmt.Errorf("the project bundle does not match its hash %s", hash)
	}
	if len(data) > maxBundleObject {
		return "", fmt.Errorf("the project bundle is larger than %d MiB", maxBundleObject>>20)
	}
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return "", fmt.Errorf("not a project bundle: %v", err)
	}
	if len(b.Files) > maxBundleFiles {
		return "", fmt.Errorf("the project bundle holds more than %d files", maxBundleFiles)
	}
	project, err := bundleName(b.Project)
	if err != nil {
		return "", err
	}
	if _, ok := b.Files[b.Project]; !ok || !strings.HasSuffix(b.Project, ".toml") {
		return "", fmt.Errorf("the project bundle lacks its project file %q", cut(b.Project, 80))
	}
	if path, ok := extracted(dir, hash); ok {
		return path, nil
	}
	root := filepath.Join(dir, hash)
	tmp, err := projects.MkdirTemp(dir, "."+hash[:12]+".tmp*")
	if err != nil {
		return "", err
	}
	placed := false
	defer func() {
		if placed {
			projects.ForgetTemp(tmp)
		} else {
			projects.RemoveTemp(tmp)
		}
	}()
	names := make([]string, 0, len(b.Files))
	for name := range b.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		clean, err := bundleName(name)
		if err != nil {
			return "", err
		}
		path := filepath.Join(tmp, clean)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("the project bundle's file %q: %v", cut(name, 80), err)
		}
		// Created, never opened as it stands: two names of one file
		// (a/b and a//b) are refused rather than written twice.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", fmt.Errorf("the project bundle's file %q: %v", cut(name, 80), err)
		}
		_, err = f.Write(b.Files[name])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".modex-project"), []byte(filepath.ToSlash(project)), 0o600); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil {
		if path, ok := extracted(dir, hash); ok { // another worker of this cache extracted it meanwhile
			return path, nil
		}
		return "", err
	}
	placed = true
	return filepath.Join(root, project), nil
}

// confined checks that a project extracted under root keeps to it: its
// model, symbolic links resolved, is a regular file inside root (the
// model's loads are kept to the model's folder by the model loader).
func confined(p *projects.Project, root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if filepath.IsAbs(p.Model) {
		return fmt.Errorf("the project names a model outside its bundle (%s)", cut(p.Model, 80))
	}
	real, err := filepath.EvalSymlinks(p.ModelPath())
	if err != nil {
		return fmt.Errorf("the project's model %s is not in its bundle", cut(p.Model, 80))
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || escapes(rel) {
		return fmt.Errorf("the project names a model outside its bundle (%s)", cut(p.Model, 80))
	}
	if st, err := os.Lstat(real); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("the project's model %s is not a regular file", cut(p.Model, 80))
	}
	return nil
}
