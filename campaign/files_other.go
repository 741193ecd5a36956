//go:build !unix

package campaign

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/modex/modex/engine/model"
)

// readChecked reads a key, trust or credentials file (what names it in
// errors), at most maxKeyFile bytes. On systems without Unix owners and
// modes (Windows), only that it is a regular file is checked: its access
// control lists are the user's to set.
func readChecked(path, what string, secret bool) ([]byte, fs.FileMode, error) {
	data, err := model.ReadFileLimited(path, maxKeyFile)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	return data, st.Mode().Perm() &^ 0o077, nil
}
