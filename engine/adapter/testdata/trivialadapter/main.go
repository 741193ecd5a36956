// Command trivialadapter is the smallest correct adapter for the stack
// model over the JSON-lines protocol (docs/adapter-protocol.md): requests
// decoded into a struct, answers written by hand, one write each. It is the
// "trivial Go adapter" of the online-speed benchmark
// (BenchmarkOnlineTrivialAdapter): what is left of a step is Modex's and the
// pipe's.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
)

type request struct {
	Type   string            `json:"type"`
	ID     json.RawMessage   `json:"id"`
	Action string            `json:"action"`
	Args   []json.RawMessage `json:"args"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 8<<20)
	out := bufio.NewWriter(os.Stdout)
	var stack []string // the pushed values, as their JSON text
	var b []byte
	answer := func(typ string, id json.RawMessage, rest string) {
		b = append(b[:0], `{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","id":`...)
		b = append(b, id...)
		b = append(b, rest...)
		b = append(b, "}\n"...)
		out.Write(b)
		out.Flush()
	}
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			continue
		}
		switch r.Type {
		case "hello":
			answer("hello", r.ID, `,"protocol":"modex-adapter/1","name":"trivial stack"`)
		case "reset":
			stack = stack[:0]
			answer("ok", r.ID, "")
		case "shutdown":
			return
		case "invoke":
			switch {
			case r.Action == "Push" && len(stack) < 3 && len(r.Args) == 1:
				stack = append(stack, string(r.Args[0]))
				answer("result", r.ID, `,"output":null`)
			case r.Action == "Pop" && len(stack) > 0:
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				answer("result", r.ID, `,"output":`+top)
			default:
				answer("refused", r.ID, `,"reason":`+strconv.Quote("not enabled"))
			}
		}
	}
}
