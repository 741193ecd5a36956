// Command fakeadapter is an adapter for the stack model that misbehaves on
// request, for testing how Modex reports failing implementations:
//
//	fakeadapter good | crash-after N | hang-after N | garbage-after N |
//	            refuse-push | wrong-pop | bad-hello | stray-answer |
//	            close-stdout-after N | long-line-after N | flood-after N | escape |
//	            deaf-after N | close-stdin-after N | fractional-id | big-events-after N |
//	            noisy PIDFILE | no-push-hello | no-push | bad-unimplemented |
//	            coverage-lcov
//
// coverage-lcov answers Modex's coverage request with an LCOV file it
// writes in the temporary folder: three lines of "fake/stack.go", the first
// reached, the second once a Pop was, the third never.
// no-push-hello says in the handshake that Push is not implemented (and
// exits with status 5 if it is invoked all the same); no-push answers
// "unimplemented" to Push; bad-unimplemented's handshake lists them wrong.
// noisy is a good stack that writes its process id to PIDFILE, for a test
// to kill it, and a line on its standard error at its start and at each
// reset.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	mode := os.Args[1]
	n := 0
	if len(os.Args) > 2 {
		n, _ = strconv.Atoi(os.Args[2])
	}
	if mode == "escape" {
		// A grandchild in a session of its own, holding our stderr: the
		// process group kill cannot reach it.
		cmd := exec.Command("sleep", "30")
		cmd.Stderr = os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Start()
	}
	resets := 0
	if mode == "noisy" {
		os.WriteFile(os.Args[2], []byte(strconv.Itoa(os.Getpid())), 0o644)
		fmt.Fprintf(os.Stderr, "fake stack started, pid %d\n", os.Getpid())
	}
	out := json.NewEncoder(os.Stdout)
	var stack []float64
	calls, pops := 0, 0
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		var msg map[string]any
		json.Unmarshal(sc.Bytes(), &msg)
		id := msg["id"]
		switch msg["type"] {
		case "hello":
			proto := "modex-adapter/1"
			if mode == "bad-hello" {
				proto = "something-else/9"
			}
			hello := map[string]any{"type": "hello", "id": id, "protocol": proto}
			switch mode {
			case "no-push-hello":
				hello["unimplemented"] = []string{"Push"}
			case "bad-unimplemented":
				hello["unimplemented"] = "Push"
			case "coverage-lcov":
				hello["features"] = []string{"coverage"}
			}
			out.Encode(hello)
			if n == 0 && mode == "deaf-after" {
				time.Sleep(time.Hour) // reading no request: a large one fills the pipe
			}
			if n == 0 && mode == "close-stdin-after" {
				os.Stdin.Close()
				time.Sleep(time.Hour)
			}
			continue
		case "reset":
			if resets++; mode == "noisy" {
				fmt.Fprintf(os.Stderr, "reset %d\n", resets)
			}
			stack = nil
			out.Encode(map[string]any{"type": "ok", "id": id})
			continue
		case "shutdown":
			return
		case "coverage":
			path := filepath.Join(os.TempDir(), fmt.Sprintf("modex-fake-%d.lcov", os.Getpid()))
			popped := 0
			if pops > 0 {
				popped = 1
			}
			os.WriteFile(path, []byte(fmt.Sprintf("SF:fake/stack.go\nDA:1,1\nDA:2,%d\nDA:3,0\nend_of_record\n", popped)), 0o644)
			out.Encode(map[string]any{"type": "coverage", "id": id, "format": "lcov", "path": path})
			continue
		}
		calls++
		if calls > n {
			switch mode {
			case "crash-after":
				fmt.Fprintln(os.Stderr, "panic: the fake implementation crashed")
				os.Exit(3)
			case "hang-after":
				time.Sleep(time.Hour)
			case "garbage-after":
				fmt.Println("this is not JSON")
				continue
			case "stray-answer":
				out.Encode(map[string]any{"type": "ok", "id": 999})
				continue
			case "close-stdout-after":
				os.Stdout.Close()
				time.Sleep(time.Hour)
			case "deaf-after":
				// Alive, but reading no more requests: a large one fills
				// the pipe and blocks its writer.
				time.Sleep(time.Hour)
			case "close-stdin-after":
				os.Stdin.Close()
				time.Sleep(time.Hour)
			case "fractional-id":
				f, _ := id.(float64)
				out.Encode(map[string]any{"type": "result", "id": f + 0.9, "output": nil})
				continue
			case "long-line-after":
				fmt.Println(strings.Repeat("x", 17<<20))
				continue
			case "big-events-after":
				// Events of 15 MB each, while the request stays unanswered.
				big := strings.Repeat("x", 15<<20)
				for i := 0; i < 6; i++ {
					if out.Encode(map[string]any{"type": "event", "action": "Pop", "args": []any{big}}) != nil {
						return
					}
				}
				time.Sleep(time.Hour)
			case "flood-after":
				// Events, endlessly, while the request stays unanswered.
				for {
					if out.Encode(map[string]any{"type": "event", "action": "Pop", "args": []any{}}) != nil {
						return
					}
				}
			}
		}
		action, _ := msg["action"].(string)
		args, _ := msg["args"].([]any)
		switch action {
		case "Push":
			if mode == "no-push-hello" {
				os.Exit(5)
			}
			if mode == "no-push" {
				out.Encode(map[string]any{"type": "unimplemented", "id": id, "reason": "not yet"})
				continue
			}
			if len(stack) >= 3 || (mode == "refuse-push" && len(stack) >= 1) {
				out.Encode(map[string]any{"type": "refused", "id": id, "reason": "full"})
				continue
			}
			stack = append(stack, args[0].(float64))
			out.Encode(map[string]any{"type": "result", "id": id, "output": nil})
		case "Pop":
			pops++
			if len(stack) == 0 {
				out.Encode(map[string]any{"type": "refused", "id": id, "reason": "empty"})
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if mode == "wrong-pop" {
				top = 42
			}
			out.Encode(map[string]any{"type": "result", "id": id, "output": top})
		}
	}
}
