package projects

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modex/modex/engine/conform"
)

// FailuresDir is where failing runs are saved by default: modex/failures/
// PROJECT in the user's cache folder.
func FailuresDir(project string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "modex", "failures", project), nil
}

// MaxSavedFailures is how many failing runs one modex test saves: the first
// ones (a long test against a broken implementation would otherwise write a
// file per run).
const MaxSavedFailures = 20

// SaveFailure writes a failing run (conform.SavedRun) into dir (""
// FailuresDir) and returns the file's path, for modex test --rerun.
func SaveFailure(dir, project, config string, tc conform.TestConfig, r conform.RunResult) (string, error) {
	if dir == "" {
		var err error
		if dir, err = FailuresDir(project); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	if err := conform.SaveRun(project, config, tc, r).Write(&b); err != nil {
		return "", err
	}
	file := filepath.Join(dir, fmt.Sprintf("%s-%s-seed%d-run%d.json", project, config, r.Seed, r.Run))
	return file, WriteFileAtomic(file, []byte(b.String()))
}

// SaveShrunk writes the shrunk form of a saved failing run next to it
// (NAME-shrunk.json for NAME.json) and returns the file's path.
func SaveShrunk(original string, run *conform.SavedRun) (string, error) {
	var b strings.Builder
	if err := run.Write(&b); err != nil {
		return "", err
	}
	file := strings.TrimSuffix(original, filepath.Ext(original)) + "-shrunk.json"
	return file, WriteFileAtomic(file, []byte(b.String()))
}
