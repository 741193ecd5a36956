package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"time"
)

// Server is the chat server under test: clients connect over TCP, ENTER the
// single session and POST messages, which the server delivers to every other
// member as "MSG <sender> <text>".
//
// The buggy server (the paper's) starts a goroutine per delivery that waits a
// little before writing, so two messages of one sender can reach a receiver
// out of order. The fixed server gives every receiver one ordered queue.
type Server struct {
	ln    net.Listener
	fixed bool

	mu      sync.Mutex
	nextID  int
	members map[int]*conn
	all     map[int]*conn
	wg      sync.WaitGroup
}

type conn struct {
	id    int
	c     net.Conn
	wmu   sync.Mutex
	queue chan string // fixed mode: ordered deliveries
}

func (c *conn) send(line string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintln(c.c, line)
}

// Listen starts a server on addr ("127.0.0.1:0" for any free port).
func Listen(addr string, fixed bool) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, fixed: fixed, members: map[int]*conn{}, all: map[int]*conn{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server and drops every connection.
func (s *Server) Close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.all {
		c.c.Close()
		if c.queue != nil {
			close(c.queue)
		}
	}
	s.all = map[int]*conn{}
	s.members = map[int]*conn{}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.nextID++
		c := &conn{id: s.nextID, c: nc}
		if s.fixed {
			c.queue = make(chan string, 1024)
			go func() {
				for line := range c.queue {
					c.send(line)
				}
			}()
		}
		s.all[c.id] = c
		s.mu.Unlock()
		c.send(fmt.Sprintf("ID %d", c.id))
		s.wg.Add(1)
		go s.serve(c)
	}
}

func (s *Server) serve(c *conn) {
	defer s.wg.Done()
	r := bufio.NewScanner(c.c)
	for r.Scan() {
		cmd, arg, _ := strings.Cut(r.Text(), " ")
		switch cmd {
		case "ENTER":
			s.mu.Lock()
			_, already := s.members[c.id]
			s.members[c.id] = c
			s.mu.Unlock()
			if already {
				c.send("ERR already a member")
			} else {
				c.send("OK")
			}
		case "POST":
			s.mu.Lock()
			_, member := s.members[c.id]
			var to []*conn
			for id, m := range s.members {
				if id != c.id {
					to = append(to, m)
				}
			}
			s.mu.Unlock()
			if !member {
				c.send("ERR not a member")
				continue
			}
			c.send("OK")
			line := fmt.Sprintf("MSG %d %s", c.id, arg)
			for _, m := range to {
				if s.fixed {
					m.queue <- line
					continue
				}
				// The bug: a goroutine per delivery, with no ordering.
				go func(m *conn) {
					time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
					m.send(line)
				}(m)
			}
		default:
			c.send("ERR unknown command " + cmd)
		}
	}
}
