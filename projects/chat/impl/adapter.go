package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// chatAdapter drives the chat server for Modex, on the adapter kit
// (modexadapter.go, a copy of adapters/go/modexadapter.go).
type chatAdapter struct {
	kit        *Adapter
	fixed      bool
	serverAddr string

	server  *Server // the server this adapter started, if any
	clients map[string]*client
	readers sync.WaitGroup // the clients' listen goroutines
}

type client struct {
	id    string
	c     net.Conn
	reply chan string
}

// newChatAdapter is the adapter of the chat server: a fixed one, and at
// serverAddr unless that is "" (then it starts its own at each reset).
func newChatAdapter(fixed bool, serverAddr string) *Adapter {
	ca := &chatAdapter{fixed: fixed, serverAddr: serverAddr, clients: map[string]*client{}}
	ca.kit = New("chat server (fixed=" + fmt.Sprint(fixed) + ")")
	ca.kit.Handle("Create", ca.create)
	ca.kit.Handle("Enter", func(args Args) (any, error) { return nil, ca.command(args.String(0), "ENTER") })
	ca.kit.Handle("Post", func(args Args) (any, error) { return nil, ca.command(args.String(0), "POST "+args.String(1)) })
	ca.kit.OnReset(ca.reset)
	ca.kit.OnClose(ca.stop)
	return ca.kit
}

// stop closes the clients, waits for their goroutines (so that no Deliver
// of this run comes after the reset), and stops the server.
func (ca *chatAdapter) stop() {
	for _, c := range ca.clients {
		c.c.Close()
	}
	ca.readers.Wait()
	ca.clients = map[string]*client{}
	if ca.server != nil {
		ca.server.Close()
		ca.server = nil
	}
}

func (ca *chatAdapter) reset() error {
	ca.stop()
	if ca.serverAddr != "" {
		return nil
	}
	s, err := Listen("127.0.0.1:0", ca.fixed)
	if err != nil {
		return err
	}
	ca.server = s
	return nil
}

func (ca *chatAdapter) addr() string {
	if ca.server != nil {
		return ca.server.Addr()
	}
	return ca.serverAddr
}

// create opens a client connection and returns its id ("c1", ...).
func (ca *chatAdapter) create(Args) (any, error) {
	conn, err := net.DialTimeout("tcp", ca.addr(), 2*time.Second)
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ID ") {
		conn.Close()
		return nil, fmt.Errorf("server greeting %q: %v", line, err)
	}
	c := &client{id: "c" + strings.TrimSpace(line[3:]), c: conn, reply: make(chan string, 1)}
	ca.clients[c.id] = c
	ca.readers.Add(1)
	go ca.listen(c, r)
	return c.id, nil
}

// command sends cmd (ENTER, POST msg) for a client and waits for the
// server's answer: OK, or ERR and why (a refusal).
func (ca *chatAdapter) command(id, cmd string) error {
	c, ok := ca.clients[id]
	if !ok {
		return Refuse("no such client " + id)
	}
	c.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintln(c.c, cmd); err != nil {
		return err
	}
	select {
	case reply := <-c.reply:
		if reply == "OK" {
			return nil
		}
		return Refuse(strings.TrimPrefix(reply, "ERR "))
	case <-time.After(2 * time.Second):
		return fmt.Errorf("the server did not answer %s", cmd)
	}
}

// listen reads a client's connection: replies go to the waiting command,
// messages become Deliver events.
func (ca *chatAdapter) listen(c *client, r *bufio.Reader) {
	defer ca.readers.Done()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "MSG ") {
			if parts := strings.SplitN(line, " ", 3); len(parts) == 3 {
				ca.kit.Emit("Deliver", "c"+parts[1], c.id, parts[2])
			}
			continue
		}
		select {
		case c.reply <- line:
		default: // a reply no command waits for
		}
	}
}
