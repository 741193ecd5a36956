// Command impl is the conference sample's implementation under test: a
// Conference Protocol Entity (seed 002) speaking the protocol's PDUs over
// UDP on loopback, run together with N test agents (entities of their own,
// in the same process, on their own sockets), and its Modex adapter on
// standard input and output (docs/adapter-protocol.md):
//
//	impl adapter [--agents N] [--mutant 0|1|2|3] [--pauses fixed|random] [--pause MS]
//
// The entity under test has UID 1 and the nick "ConfProt"; agent i has UID
// i+1 and the nick "TestBot<i>". Join, Leave and DataReq are invoked on the
// entity; every PDU it processes is reported as the event OnJoin, OnAnswer,
// OnLeave (sender's UID, conference, nick) or OnDataInd (UID, message).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime/coverage"
	"sync"
	"time"
)

const (
	selfUID        = 1
	selfNick       = "ConfProt"
	conferenceName = "Conf"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "adapter" {
		fmt.Fprintln(os.Stderr, "usage: impl adapter [--agents N] [--mutant 0|1|2|3] [--pauses fixed|random] [--pause MS]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("adapter", flag.ExitOnError)
	agents := fs.Int("agents", 1, "number of test agents")
	mutant := fs.Int("mutant", 0, "mutant of the entity under test (0: none)")
	pauses := fs.String("pauses", "fixed", "agents' pauses: fixed or random")
	pause := fs.Float64("pause", 2, "agents' pause in milliseconds (the mean, when random)")
	fs.Parse(os.Args[2:])
	if *agents < 0 || *agents > 100 || *mutant < 0 || *mutant > 3 || (*pauses != "fixed" && *pauses != "random") {
		fmt.Fprintln(os.Stderr, "bad arguments")
		os.Exit(2)
	}
	a := &adapter{out: os.Stdout, agents: *agents, mutant: *mutant, random: *pauses == "random",
		pause: time.Duration(*pause * float64(time.Millisecond))}
	if err := a.run(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// adapter speaks the Modex adapter protocol for the entity under test.
type adapter struct {
	out    io.Writer
	outMu  sync.Mutex
	agents int
	mutant int
	random bool
	pause  time.Duration
	resets uint64

	iut  *CPE
	all  []*CPE
	stop chan struct{}
	wg   sync.WaitGroup
}

func (a *adapter) send(msg map[string]any) {
	data, _ := json.Marshal(msg)
	a.outMu.Lock()
	a.out.Write(append(data, '\n'))
	a.outMu.Unlock()
}

func (a *adapter) run(in io.Reader) error {
	defer a.shutdown()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			return fmt.Errorf("bad request %q: %v", sc.Text(), err)
		}
		id := msg["id"]
		switch msg["type"] {
		case "hello":
			a.send(map[string]any{"type": "hello", "id": id, "protocol": "modex-adapter/1", "features": []string{"coverage"},
				"name": fmt.Sprintf("conference protocol entity (%d agents, mutant %d)", a.agents, a.mutant)})
		case "coverage":
			a.send(coverageAnswer(id))
		case "reset":
			if err := a.reset(); err != nil {
				a.send(map[string]any{"type": "error", "id": id, "message": err.Error()})
				continue
			}
			a.send(map[string]any{"type": "ok", "id": id})
		case "invoke":
			action, _ := msg["action"].(string)
			args, _ := msg["args"].([]any)
			refused, err := a.invoke(action, args)
			switch {
			case err != nil:
				a.send(map[string]any{"type": "error", "id": id, "message": err.Error()})
			case refused != "":
				a.send(map[string]any{"type": "refused", "id": id, "reason": refused})
			default:
				a.send(map[string]any{"type": "result", "id": id, "output": nil})
			}
		case "shutdown":
			return nil
		default:
			return fmt.Errorf("unknown request type %v", msg["type"])
		}
	}
	return sc.Err()
}

// shutdown stops the agents and closes every socket.
func (a *adapter) shutdown() {
	if a.stop != nil {
		close(a.stop)
		a.stop = nil
	}
	for _, c := range a.all {
		c.Close()
	}
	a.wg.Wait()
	a.all, a.iut = nil, nil
}

// reset starts afresh: new sockets (so that no PDU of the last run is still
// on its way), the entity idle, the agents idle and starting their cycles.
func (a *adapter) reset() error {
	a.shutdown()
	a.resets++
	universe := map[int]*net.UDPAddr{}
	for uid := 1; uid <= a.agents+1; uid++ {
		nick := selfNick
		if uid > 1 {
			nick = fmt.Sprintf("TestBot%d", uid-1)
		}
		c, err := NewCPE(uid, nick)
		if err != nil {
			return err
		}
		a.all = append(a.all, c)
		universe[uid] = c.Addr()
	}
	for _, c := range a.all {
		c.SetUniverse(universe)
	}
	a.iut = a.all[0]
	a.iut.Mutant = a.mutant
	a.iut.Indicate = a.indicate
	a.stop = make(chan struct{})
	for _, c := range a.all {
		a.wg.Add(1)
		go func(c *CPE) { defer a.wg.Done(); c.Serve() }(c)
	}
	for i, c := range a.all[1:] {
		ag := &Agent{CPE: c, Random: a.random, Pause: a.pause, rng: rand.New(rand.NewPCG(a.resets, uint64(i)))}
		if !a.random {
			// Predetermined pauses: a fixed duration per agent, different
			// for each so that their cycles drift against each other.
			ag.Pause = a.pause * time.Duration(i+2) / 2
		}
		a.wg.Add(1)
		go ag.Run(a.stop, &a.wg)
	}
	return nil
}

// indicate reports a PDU the entity under test processed.
func (a *adapter) indicate(ind Indication) {
	p := ind.PDU
	switch p.Type {
	case pduJoin, pduAnswer, pduLeave:
		name := map[byte]string{pduJoin: "OnJoin", pduAnswer: "OnAnswer", pduLeave: "OnLeave"}[p.Type]
		a.send(map[string]any{"type": "event", "action": name, "args": []any{ind.UID, p.Conference, p.Partner}})
	case pduData:
		a.send(map[string]any{"type": "event", "action": "OnDataInd", "args": []any{ind.UID, p.Data}})
	}
}

func (a *adapter) invoke(action string, args []any) (string, error) {
	if a.iut == nil {
		return "", fmt.Errorf("invoke before reset")
	}
	str := func() (string, error) {
		if len(args) != 1 {
			return "", fmt.Errorf("%s takes one argument", action)
		}
		s, ok := args[0].(string)
		if !ok {
			return "", fmt.Errorf("%s: argument %v is not a string", action, args[0])
		}
		return s, nil
	}
	switch action {
	case "Join":
		conf, err := str()
		if err != nil {
			return "", err
		}
		if !a.iut.Join(conf) {
			return "already in a conference", nil
		}
	case "Leave":
		if !a.iut.Leave() {
			return "not in a conference", nil
		}
	case "DataReq":
		msg, err := str()
		if err != nil {
			return "", err
		}
		if !a.iut.DataReq(msg) {
			return "not in a conference", nil
		}
	default:
		return "", fmt.Errorf("unknown action %q", action)
	}
	return "", nil
}

// coverageAnswer writes the entity's coverage counters into GOCOVERDIR
// when Modex measures code coverage (the adapter protocol's coverage
// request; the binary built with go build -cover -covermode=atomic).
func coverageAnswer(id any) map[string]any {
	dir := os.Getenv("GOCOVERDIR")
	if dir == "" {
		return map[string]any{"type": "coverage", "id": id, "format": "none", "reason": "GOCOVERDIR is not set"}
	}
	if err := coverage.WriteMetaDir(dir); err != nil {
		return map[string]any{"type": "coverage", "id": id, "format": "none", "reason": "not built with -cover: " + err.Error()}
	}
	if err := coverage.WriteCountersDir(dir); err != nil {
		return map[string]any{"type": "coverage", "id": id, "format": "none", "reason": err.Error()}
	}
	return map[string]any{"type": "coverage", "id": id, "format": "gocoverdir", "path": dir}
}
