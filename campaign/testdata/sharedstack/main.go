// Command sharedstack is a stateful stack server and its Modex adapter, for
// testing campaigns whose workers must not share one server:
//
//	sharedstack server SOCKET LOG   serve one stack to every connection on the
//	                                 Unix socket; log each connection to LOG
//	sharedstack adapter SOCKET      the adapter (stdin/stdout) of the stack
//	                                 model, on the server at SOCKET
//
// The server's commands are lines: "reset", "push N", "pop"; it answers
// "ok", "full", "empty" or the value popped.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

func main() {
	switch os.Args[1] {
	case "server":
		serve(os.Args[2], os.Args[3])
	case "adapter":
		adapt(os.Args[2])
	}
}

func serve(socket, logFile string) {
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	log, _ := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	var mu sync.Mutex
	var stack []int
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		fmt.Fprintln(log, "connection")
		go func() {
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				mu.Lock()
				answer := "ok"
				switch {
				case len(f) == 1 && f[0] == "reset":
					stack = nil
				case len(f) == 2 && f[0] == "push":
					n, _ := strconv.Atoi(f[1])
					if len(stack) >= 3 {
						answer = "full"
					} else {
						stack = append(stack, n)
					}
				case len(f) == 1 && f[0] == "pop":
					if len(stack) == 0 {
						answer = "empty"
					} else {
						answer = strconv.Itoa(stack[len(stack)-1])
						stack = stack[:len(stack)-1]
					}
				}
				mu.Unlock()
				fmt.Fprintln(c, answer)
			}
		}()
	}
}

func adapt(socket string) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := bufio.NewScanner(c)
	ask := func(line string) string {
		fmt.Fprintln(c, line)
		server.Scan()
		return server.Text()
	}
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var msg map[string]any
		json.Unmarshal(in.Bytes(), &msg)
		id := msg["id"]
		switch msg["type"] {
		case "hello":
			out.Encode(map[string]any{"type": "hello", "id": id, "protocol": "modex-adapter/1", "name": "stack at " + socket})
		case "reset":
			ask("reset")
			out.Encode(map[string]any{"type": "ok", "id": id})
		case "shutdown":
			return
		case "invoke":
			args, _ := msg["args"].([]any)
			var answer string
			if msg["action"] == "Push" {
				answer = ask(fmt.Sprintf("push %v", args[0]))
			} else {
				answer = ask("pop")
			}
			switch answer {
			case "full", "empty":
				out.Encode(map[string]any{"type": "refused", "id": id, "reason": answer})
			case "ok":
				out.Encode(map[string]any{"type": "result", "id": id, "output": nil})
			default:
				n, _ := strconv.Atoi(answer)
				out.Encode(map[string]any{"type": "result", "id": id, "output": n})
			}
		}
	}
}
