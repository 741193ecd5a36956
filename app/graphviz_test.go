package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/goccy/go-graphviz"
)

// TestGraphvizLoadHelper is run by TestCommandsWithoutLayoutLeaveGraphvizUnloaded
// in a child process: it runs the command line given in MODEX_GV_HELPER_ARGS
// (a JSON array of its words) and says whether Graphviz was loaded by then.
func TestGraphvizLoadHelper(t *testing.T) {
	args := os.Getenv("MODEX_GV_HELPER_ARGS")
	if args == "" {
		t.Skip("run by TestCommandsWithoutLayoutLeaveGraphvizUnloaded")
	}
	var words []string
	if err := json.Unmarshal([]byte(args), &words); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(words...)
	fmt.Printf("exit %d, graphviz loaded: %v\n%s", code, graphviz.Loaded(), errOut)
}

// TestCommandsWithoutLayoutLeaveGraphvizUnloaded: Graphviz (a WASM module
// compiled at load, about 15 MB and 30 ms a process) is loaded by the first
// layout, not by every process that links it; a command that lays nothing
// out never loads it, and one that writes an SVG does.
func TestCommandsWithoutLayoutLeaveGraphvizUnloaded(t *testing.T) {
	svg := t.TempDir() + "/chat.svg"
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"explore", "../projects/chat/chat.toml"}, false},
		{[]string{"explore", "--format", "dot", "../projects/chat/chat.toml"}, false},
		{[]string{"explore", "--format", "svg", "--out", svg, "../projects/chat/chat.toml"}, true},
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGraphvizLoadHelper$")
		words, _ := json.Marshal(c.args)
		cmd.Env = append(os.Environ(), "MODEX_GV_HELPER_ARGS="+string(words))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.args, err, out)
		}
		want := fmt.Sprintf("exit 0, graphviz loaded: %v\n", c.want)
		if !strings.Contains(string(out), want) {
			t.Errorf("modex %s: want %q in\n%s", c.args, want, out)
		}
	}
}
