//go:build windows

package adapter

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the child in a new process group, so that a Ctrl+C sent to
// Modex's console does not reach it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the child. Degraded on Windows: processes the adapter
// started itself are not reached (that would need a job object, which the
// standard library does not offer); an adapter there must end its own
// children when its standard input closes. docs/adapter-protocol.md says so.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// ShareOneCPU is supported on Linux only.
func ShareOneCPU() (restore func(), err error) {
	return nil, errors.New("running on one CPU is supported on Linux only")
}

// killedBy is "" on Windows, where no signal ends a process (an exit status
// says how it ended).
func killedBy(*os.ProcessState) string { return "" }

// signalNamed is "" on Windows: go run reports a child's end there as an
// exit status.
func signalNamed(string) string { return "" }
