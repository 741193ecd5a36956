package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtractBundle feeds a worker bundles as an attacker may publish
// them: whatever it extracts stays inside its folder, and a project file
// it returns is a regular file there.
func FuzzExtractBundle(f *testing.F) {
	good, _ := json.Marshal(&bundle{Project: "p.toml", Files: map[string][]byte{"p.toml": []byte("name = \"p\"\n"), "m/x.star": nil}})
	f.Add(good)
	f.Add([]byte(`{"project":"../x.toml","files":{"../x.toml":""}}`))
	f.Add([]byte(`{"project":"a/b.toml","files":{"a":"","a/b.toml":""}}`))
	f.Add([]byte(`{"project":".h.toml","files":{".h.toml":""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		sum := sha256.Sum256(data)
		path, err := extractBundle(data, hex.EncodeToString(sum[:]), dir)
		if err != nil {
			return
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
			t.Fatalf("extracted %s outside %s", path, dir)
		}
		if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("the project %s is not a regular file: %v", path, err)
		}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink != 0 {
				t.Fatalf("a symbolic link was extracted: %s", p)
			}
			return nil
		})
	})
}

// FuzzParseTrust reads trust lists (keys or files of keys): it never
// accepts what is not a public key.
func FuzzParseTrust(f *testing.F) {
	f.Add(PublicKey(testKey))
	f.Add("UABC,,U")
	f.Add("SU" + strings.Repeat("A", 56))
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "/\\") || s == "." || s == ".." {
			return // file names: not this fuzz's concern
		}
		tr, err := ParseTrust([]string{s})
		if err != nil {
			return
		}
		for k := range tr {
			if _, err := verify(nil, nil, Trust{k: true}); err == nil {
				t.Fatalf("an unsigned message verified with %q", k)
			}
			if len(k) != 56 || k[0] != 'U' {
				t.Fatalf("accepted %q as a key", k)
			}
		}
	})
}
