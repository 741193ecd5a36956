package projects

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/internal/safetext"
)

// FailuresDir is where failing runs are saved by default: modex/failures/
// PROJECT in the user's cache folder.
func FailuresDir(project string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "modex", "failures", SafeName(project)), nil
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
	return WriteNew(dir, fmt.Sprintf("%s-%s-seed%d-run%d", SafeName(project), SafeName(config), r.Seed, r.Run), ".json", []byte(b.String()))
}

// RerunCommand is the command line, to be printed for people to paste,
// that drives the steps of a saved run again: modex test PROJECT
// [--config NAME] --rerun FILE, each word quoted for a POSIX shell
// (safetext.Shell): a project's path, a configuration's name or a folder
// of failures holding ; or $(…) runs nothing when the line is pasted.
// config "" leaves --config out (the saved run names its configuration).
func RerunCommand(path, config, file string) string {
	words := []string{"modex", "test", path}
	if config != "" {
		words = append(words, "--config", config)
	}
	return safetext.Command(append(words, "--rerun", file)...)
}

// SameChoicesCommand is the command line, quoted as RerunCommand's is,
// that runs a run's choices again from its seed: modex test PROJECT
// --config NAME --runs 1 --seed S --steps N --strategy X.
func SameChoicesCommand(path, config string, seed uint64, steps int, strategy conform.Strategy) string {
	return safetext.Command("modex", "test", path, "--config", config, "--runs", "1", "--seed", strconv.FormatUint(seed, 10),
		"--steps", strconv.Itoa(steps), "--strategy", string(strategy))
}

// SafeName makes a name (a project's, a configuration's) fit to be part of
// a file name: letters, digits, '.', '_' and '-' are kept, anything else
// becomes '_', a leading dot too, and it is cut to 64 bytes. A name with
// "../" or "/" then never leaves the folder it is saved in.
func SafeName(s string) string {
	b := []byte(s)
	if len(b) > 64 {
		b = b[:64]
	}
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// WriteNew writes data as a new file in dir named base, a short random
// suffix and ext (base-1a2b3c.json), never replacing a file: two processes
// saving the same run each keep theirs. The file appears whole (written
// under a temporary name, then linked to its name, which fails if taken).
func WriteNew(dir, base, ext string, data []byte) (string, error) {
	f, err := CreateTemp(dir, ".new-*.tmp")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	defer RemoveTemp(tmp) // linked to its name, or not: the temporary name goes
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		return "", err
	}
	for try := 0; ; try++ {
		var suffix [3]byte
		if _, err := rand.Read(suffix[:]); err != nil {
			return "", err
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%s%s", base, hex.EncodeToString(suffix[:]), ext))
		err := os.Link(tmp, file)
		if err == nil {
			return file, nil
		}
		if !errors.Is(err, os.ErrExist) || try == 20 {
			return "", err
		}
	}
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
