// Command impl is the chat sample's implementation under test: a TCP chat
// server, and the Modex adapter that drives it.
//
//	impl server --listen 127.0.0.1:7000 [--fixed]   run the chat server
//	impl adapter [--fixed] [--server ADDR]          speak the Modex adapter
//	             [--listen ADDR]                    protocol on stdin/stdout
//	                                                (or one TCP connection)
//
// The adapter starts its own server on a free local port unless --server
// names one; reset restarts that server. Model actions map to the server as:
// Create() opens a client connection and returns its id ("c1", ...);
// Enter(c) sends ENTER; Post(c, msg) sends POST msg; every MSG a client
// receives is reported as the observable Deliver(sender, receiver, msg).
// adapter.go has the adapter's code; modexadapter.go, a copy of Modex's
// adapter kit (adapters/go), speaks the protocol.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: impl server|adapter [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "server":
		fs := flag.NewFlagSet("server", flag.ExitOnError)
		listen := fs.String("listen", "127.0.0.1:7000", "address to listen on")
		fixed := fs.Bool("fixed", false, "deliver each sender's messages in order")
		fs.Parse(os.Args[2:])
		s, err := Listen(*listen, *fixed)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("listening on", s.Addr())
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		<-ch
		s.Close()
	case "adapter":
		fs := flag.NewFlagSet("adapter", flag.ExitOnError)
		fixed := fs.Bool("fixed", false, "start a fixed server")
		server := fs.String("server", "", "use a running server instead of starting one")
		fs.String("listen", "", "speak the protocol on one TCP connection at `HOST:PORT` instead")
		fs.Parse(os.Args[2:])
		if err := newChatAdapter(*fixed, *server).Run(); err != nil {
			fmt.Fprintln(os.Stderr, "adapter:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: impl server|adapter [flags]")
		os.Exit(2)
	}
}
