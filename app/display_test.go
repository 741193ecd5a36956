//go:build !headless

package main

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestX11Address(t *testing.T) {
	cases := []struct {
		display, network, addr string
		ok                     bool
	}{
		{":0", "unix", "/tmp/.X11-unix/X0", true},
		{":9.0", "unix", "/tmp/.X11-unix/X9", true},
		{":01", "unix", "/tmp/.X11-unix/X1", true},
		{"unix:3", "unix", "/tmp/.X11-unix/X3", true},
		{"localhost:10.0", "tcp", "localhost:6010", true},
		{"[::1]:2", "", "", false}, // brackets are not X11's: left to GLFW
		{"/private/tmp/com.apple.launchd.x/org.xquartz:0", "", "", false},
		{"nonsense", "", "", false},
		{":x", "", "", false},
	}
	for _, c := range cases {
		network, addr, ok := x11Address(c.display)
		if network != c.network || addr != c.addr || ok != c.ok {
			t.Errorf("x11Address(%q) = %q, %q, %v; want %q, %q, %v", c.display, network, addr, ok, c.network, c.addr, c.ok)
		}
	}
}

// A display whose server answers passes; one nobody listens at is an
// error naming it, not GLFW's panic.
func TestCheckX11(t *testing.T) {
	var ln net.Listener
	var n int
	for n = 60; n < 100; n++ {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(6000+n)); err == nil {
			break
		}
	}
	if ln == nil {
		t.Skip("no free port in 6060..6099")
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	display := "127.0.0.1:" + strconv.Itoa(n)
	if err := checkX11(display); err != nil {
		t.Fatalf("checkX11(%s) with a server listening: %v", display, err)
	}
	ln.Close()
	err := checkX11(display)
	if err == nil || !strings.Contains(err.Error(), "cannot open the display "+display) {
		t.Fatalf("checkX11(%s) with nobody listening = %v; want an error naming the display", display, err)
	}
}
