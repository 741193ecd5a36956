// Command pingadapter is an adapter for the ping model
// (testdata/ping.star): each Ping causes one observable Pong, which it
// writes before or after Ping's answer:
//
//	pingadapter before | after | both
//
// both alternates, starting with before. The event and the answer are
// written in one write in "before" mode, so that Modex reads them
// together.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	mode := os.Args[1]
	sc := bufio.NewScanner(os.Stdin)
	pings := 0
	for sc.Scan() {
		var msg map[string]any
		json.Unmarshal(sc.Bytes(), &msg)
		id, _ := json.Marshal(msg["id"])
		switch msg["type"] {
		case "hello":
			fmt.Printf(`{"type":"hello","id":%s,"protocol":"modex-adapter/1","name":"ping %s"}`+"\n", id, mode)
		case "reset":
			fmt.Printf(`{"type":"ok","id":%s}`+"\n", id)
		case "shutdown":
			return
		case "invoke":
			pings++
			answer := fmt.Sprintf(`{"type":"result","id":%s,"output":null}`+"\n", id)
			event := fmt.Sprintf(`{"type":"event","action":"Pong","args":[%d]}`+"\n", pings)
			if mode == "before" || (mode == "both" && pings%2 == 1) {
				os.Stdout.WriteString(event + answer)
			} else {
				os.Stdout.WriteString(answer + event)
			}
		}
	}
}
