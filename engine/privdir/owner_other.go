//go:build !unix

package privdir

import "io/fs"

// ownedByMe reports true: outside Unix the user's cache directory
// (os.UserCacheDir) is the user's own by the system's defaults.
func ownedByMe(fs.FileInfo) bool { return true }
