package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// adapter speaks the Modex adapter protocol (docs/adapter-protocol.md).
type adapter struct {
	fixed      bool
	serverAddr string
	out        io.Writer
	outMu      sync.Mutex

	server  *Server // the server this adapter started, if any
	clients map[string]*client
}

type client struct {
	id    string
	c     net.Conn
	reply chan string
}

func (a *adapter) send(msg map[string]any) {
	data, _ := json.Marshal(msg)
	a.outMu.Lock()
	a.out.Write(append(data, '\n'))
	a.outMu.Unlock()
}

func (a *adapter) run(in io.Reader) error {
	defer a.stop()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			return fmt.Errorf("bad request %q: %v", sc.Text(), err)
		}
		id := msg["id"]
		switch msg["type"] {
		case "hello":
			a.send(map[string]any{"type": "hello", "id": id, "protocol": "modex-adapter/1", "name": "chat server (fixed=" + fmt.Sprint(a.fixed) + ")"})
		case "reset":
			if err := a.reset(); err != nil {
				a.send(map[string]any{"type": "error", "id": id, "message": err.Error()})
				continue
			}
			a.send(map[string]any{"type": "ok", "id": id})
		case "invoke":
			action, _ := msg["action"].(string)
			args, _ := msg["args"].([]any)
			out, refused, err := a.invoke(action, args)
			switch {
			case err != nil:
				a.send(map[string]any{"type": "error", "id": id, "message": err.Error()})
			case refused != "":
				a.send(map[string]any{"type": "refused", "id": id, "reason": refused})
			default:
				a.send(map[string]any{"type": "result", "id": id, "output": out})
			}
		case "shutdown":
			return nil
		default:
			return fmt.Errorf("unknown request type %v", msg["type"])
		}
	}
	return sc.Err()
}

func (a *adapter) stop() {
	for _, c := range a.clients {
		c.c.Close()
	}
	a.clients = nil
	if a.server != nil {
		a.server.Close()
		a.server = nil
	}
}

func (a *adapter) reset() error {
	a.stop()
	a.clients = map[string]*client{}
	if a.serverAddr != "" {
		return nil
	}
	s, err := Listen("127.0.0.1:0", a.fixed)
	if err != nil {
		return err
	}
	a.server = s
	return nil
}

func (a *adapter) addr() string {
	if a.server != nil {
		return a.server.Addr()
	}
	return a.serverAddr
}

func (a *adapter) invoke(action string, args []any) (any, string, error) {
	switch action {
	case "Create":
		conn, err := net.DialTimeout("tcp", a.addr(), 2*time.Second)
		if err != nil {
			return nil, "", err
		}
		r := bufio.NewReader(conn)
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "ID ") {
			conn.Close()
			return nil, "", fmt.Errorf("server greeting %q: %v", line, err)
		}
		c := &client{id: "c" + strings.TrimSpace(line[3:]), c: conn, reply: make(chan string, 1)}
		a.clients[c.id] = c
		go a.listen(c, r)
		return c.id, "", nil
	case "Enter", "Post":
		if len(args) < 1 {
			return nil, "", fmt.Errorf("%s needs a client", action)
		}
		id, _ := args[0].(string)
		c, ok := a.clients[id]
		if !ok {
			return nil, "no such client " + id, nil
		}
		cmd := "ENTER"
		if action == "Post" {
			if len(args) != 2 {
				return nil, "", fmt.Errorf("Post needs a client and a message")
			}
			cmd = fmt.Sprintf("POST %v", args[1])
		}
		c.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err := fmt.Fprintln(c.c, cmd); err != nil {
			return nil, "", err
		}
		select {
		case reply := <-c.reply:
			if reply == "OK" {
				return nil, "", nil
			}
			return nil, strings.TrimPrefix(reply, "ERR "), nil
		case <-time.After(2 * time.Second):
			return nil, "", fmt.Errorf("the server did not answer %s", cmd)
		}
	}
	return nil, "", fmt.Errorf("unknown action %q", action)
}

// listen reads a client's connection: replies go to the waiting command,
// messages become Deliver events.
func (a *adapter) listen(c *client, r *bufio.Reader) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "MSG ") {
			parts := strings.SplitN(line, " ", 3)
			if len(parts) == 3 {
				a.send(map[string]any{"type": "event", "action": "Deliver", "args": []any{"c" + parts[1], c.id, parts[2]}})
			}
			continue
		}
		c.reply <- line
	}
}
