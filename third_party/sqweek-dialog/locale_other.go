//go:build !linux

package dialog

// SetLocale does nothing here: only the Linux backend (GTK) takes the C
// locale from the environment (Modex).
func SetLocale() {}
