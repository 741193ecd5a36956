// Command adapter is the adapter of chat for the Modex model "chat" (chat.star), made
// by modex adapter new. modexadapter.go, next to it, is the kit's library.
//
// Fill in each action: make the system under test do it and return its
// output (nil when the model's action returns nothing). Until you do, an
// action returns ErrNotImplemented: Modex skips it and tests the rest.
// Return Refuse(reason) when the system refuses an action the model
// allows; any other error (or a panic) stops the test as a crash of the
// implementation. fmt.Println goes to standard error.
//
// In the project file:
//
//	[adapter]
//	command = ["go", "run", "adapter/adapter.go", "adapter/modexadapter.go"]
//
// Then: modex adapter check PROJECT, and modex test PROJECT.
package main

import (
	"fmt"
	"os"
)

var adapter = New("chat (go)")

func main() {
	adapter.OnReset(reset)
	adapter.Handle("Create", doCreate)
	adapter.Handle("Enter", doEnter)
	adapter.Handle("Post", doPost)
	// The observable actions: the system does them on its own. Report
	// each with adapter.Emit, from any goroutine, as it happens:
	//	adapter.Emit("Deliver", sender, receiver, "bye") // Deliver(sender, receiver, msg)
	if err := adapter.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// reset brings the system back to the model's initial state, before every
// run. Stop what the last run started first: Modex drops the events that
// come before reset returns.
func reset() error {
	return nil // TODO(reset)
}

// doCreate does Create().
//
// As the model states it (chat.star:12):
//
//	def Create(s):
//	    require(not PHASES or mode(s) == "creating")
//	    c = new("Client")                        # a fresh object, printed Client1, Client2, ...
//	    s.clients.append(c)
//	    return c                                 # the action's output
func doCreate(args Args) (any, error) {
	return nil, ErrNotImplemented // TODO(Create): do it on the system under test, return its output
}

// doEnter does Enter(c).
//
// c: a model object (Client1, Client2): Modex sends the value your implementation gave for it (an output that returned it)
//
// As the model states it (chat.star:18):
//
//	def Enter(s, c):
//	    require(not PHASES or mode(s) == "entering", "scenario: entering phase")
//	    require(c not in s.members, "already a member")
//	    for d in s.members:
//	        s.members[d][c] = []
//	    s.members[c] = {d: [] for d in s.members}
func doEnter(args Args) (any, error) {
	c := args.Value(0)
	_ = c
	return nil, ErrNotImplemented // TODO(Enter): do it on the system under test, return its output
}

// doPost does Post(sender, msg).
//
// sender: a model object (Client1, Client2): Modex sends the value your implementation gave for it (an output that returned it)
// msg (str): "bye", "hi"
//
// As the model states it (chat.star:25):
//
//	def Post(s, sender, msg):
//	    require(not PHASES or mode(s) == "posting")
//	    require(sender in s.members and len(s.members) > 1)
//	    for r in s.members:
//	        if r != sender:
//	            s.members[r][sender].append(msg)
func doPost(args Args) (any, error) {
	sender := args.Value(0)
	_ = sender
	msg := args.String(1)
	_ = msg
	return nil, ErrNotImplemented // TODO(Post): do it on the system under test, return its output
}
