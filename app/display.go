//go:build !headless

package main

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// checkX11 returns nil if the X server that display (DISPLAY's value)
// names accepts connections, and otherwise an error saying so in one line:
// GLFW panics when it cannot open the display.
func checkX11(display string) error {
	network, addr, ok := x11Address(display)
	if !ok {
		return nil // a form this does not know: left to GLFW
	}
	c, err := net.DialTimeout(network, addr, 3*time.Second)
	if err != nil && network == "unix" {
		// Linux X servers also listen on an abstract socket.
		c, err = net.DialTimeout("unix", "@"+addr, 3*time.Second)
	}
	if err != nil {
		return fmt.Errorf("cannot open the display %s (no X server answers at %s): the workbench needs one; "+
			"the commands explore, check, test, gen, run and replay work without (modex help)", display, addr)
	}
	c.Close()
	return nil
}

// x11Address is where the X server of display listens: [host]:N[.S] is
// the local socket /tmp/.X11-unix/XN, or TCP port 6000+N of host.
func x11Address(display string) (network, addr string, ok bool) {
	host, rest, found := strings.Cut(display, ":")
	if !found || strings.Contains(host, "/") { // a launchd path (macOS) and the like
		return "", "", false
	}
	num, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return "", "", false
	}
	if host == "" || host == "unix" {
		return "unix", "/tmp/.X11-unix/X" + strconv.Itoa(n), true
	}
	return "tcp", net.JoinHostPort(host, strconv.Itoa(6000+n)), true
}

// displayError says why no window can be opened here, or nil.
func displayError() error {
	if !hasDisplay() {
		return errNoDisplay
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return nil // not X11
	}
	// Fyne's GLFW is built for X11 (XWayland under Wayland): a DISPLAY
	// set is the one it opens.
	if d := os.Getenv("DISPLAY"); d != "" {
		return checkX11(d)
	}
	return nil
}
