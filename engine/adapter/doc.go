// Package adapter is the transport to implementations under test: the
// JSON-lines adapter protocol (docs/adapter-protocol.md) spoken over a child
// process's standard input and output (StartProcess) or a TCP connection
// (Dial). Process handling is OS-specific: on Unix-like systems the child
// runs in its own process group, which is killed on Close; on Windows only
// the child itself is killed (see process_windows.go).
package adapter
