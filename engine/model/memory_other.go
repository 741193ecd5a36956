//go:build !unix

package model

// addressSpaceLimit is the process's address-space limit: none known here.
func addressSpaceLimit() uint64 { return 0 }
