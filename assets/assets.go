// Package assets holds the icons and other resources bundled into Modex.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

// Icon is the application icon: an active state (oval) and a passive state
// (diamond).
var Icon = fyne.NewStaticResource("icon.png", iconPNG)
