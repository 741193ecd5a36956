//go:build !headless

package main

import (
	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// screenSize is the primary monitor's size in pixels, read through GLFW
// (Fyne does not say it). It must run on the main thread once GLFW is up:
// the workbench calls it from the app's started hook.
func screenSize() (fyne.Size, bool) {
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return fyne.Size{}, false
	}
	mode := m.GetVideoMode()
	if mode == nil || mode.Width <= 0 || mode.Height <= 0 {
		return fyne.Size{}, false
	}
	return fyne.NewSize(float32(mode.Width), float32(mode.Height)), true
}
