// Command adapter is the adapter of stack for the Modex model "stack" (stack.star), made
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

var adapter = New("stack (go)")

func main() {
	adapter.OnReset(reset)
	adapter.Handle("Push", doPush)
	adapter.Handle("Pop", doPop)
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

// doPush does Push(x).
//
// x (int): 1, 2
//
// As the model states it (stack.star:8):
//
//	def Push(s, x):
//	    require(len(s.stack) < CAPACITY, "the stack is full")
//	    s.stack.append(x)
func doPush(args Args) (any, error) {
	x := args.Int(0)
	_ = x
	return nil, ErrNotImplemented // TODO(Push): do it on the system under test, return its output
}

// doPop does Pop().
//
// As the model states it (stack.star:12):
//
//	def Pop(s):
//	    require(len(s.stack) > 0, "the stack is empty")
//	    return s.stack.pop()
func doPop(args Args) (any, error) {
	return nil, ErrNotImplemented // TODO(Pop): do it on the system under test, return its output
}
