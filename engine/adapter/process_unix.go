//go:build !windows

package adapter

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownGroup makes the child the leader of a new process group, so that
// killGroup reaches whatever it starts too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// killGroup kills the child's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killedBy names the signal that killed an ended process ("SIGKILL"); ""
// when it exited.
func killedBy(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return signalName(ws.Signal())
}

// signalName is a signal's name, "SIGKILL", or its number for one without
// a name.
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "number " + strconv.Itoa(int(s))
}

// signalNamed reads back the words Go's os.ProcessState gives a signal
// ("killed", "terminated", "segmentation fault"), as go run prints them
// for a child killed by one ("signal: killed"): the signal's name, ""
// when no signal has these words.
func signalNamed(words string) string {
	for s := syscall.Signal(1); s < 65; s++ {
		if s.String() == words {
			return signalName(s)
		}
	}
	return ""
}
