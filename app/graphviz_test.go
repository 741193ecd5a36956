package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-graphviz"
)

// loadedProbes say whether a library that Modex loads at first use is
// loaded in this process (gtk_test.go adds GTK's).
var loadedProbes = map[string]func() bool{"graphviz": graphviz.Loaded}

// TestLoadHelper is run by TestCommandsLoadOnlyWhatTheyUse in a child
// process: it runs the command line given in MODEX_LOAD_HELPER_ARGS (a JSON
// array of its words) and says which libraries were loaded by then.
func TestLoadHelper(t *testing.T) {
	args := os.Getenv("MODEX_LOAD_HELPER_ARGS")
	if args == "" {
		t.Skip("run by TestCommandsLoadOnlyWhatTheyUse")
	}
	var words []string
	if err := json.Unmarshal([]byte(args), &words); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(words...)
	fmt.Printf("exit %d\n", code)
	for _, name := range slices.Sorted(maps.Keys(loadedProbes)) {
		fmt.Printf("%s loaded: %v\n", name, loadedProbes[name]())
	}
	fmt.Print(errOut)
}

// TestCommandsLoadOnlyWhatTheyUse: Graphviz (a WASM module compiled at
// load, about 15 MB and 30 ms a process) is loaded by the first layout, and
// GTK (about 60 libraries; with a display, a connection and its theme) by
// the first native dialog, not by every process that links them: a command
// that lays nothing out loads neither, one that writes an SVG loads
// Graphviz, and no command loads GTK.
func TestCommandsLoadOnlyWhatTheyUse(t *testing.T) {
	svg := t.TempDir() + "/chat.svg"
	cases := []struct {
		args     []string
		graphviz bool
	}{
		{[]string{"explore", "../projects/chat/chat.toml"}, false},
		{[]string{"explore", "--format", "dot", "../projects/chat/chat.toml"}, false},
		{[]string{"explore", "--format", "svg", "--out", svg, "../projects/chat/chat.toml"}, true},
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadHelper$")
		words, _ := json.Marshal(c.args)
		cmd.Env = append(os.Environ(), "MODEX_LOAD_HELPER_ARGS="+string(words))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.args, err, out)
		}
		want := []string{"exit 0\n", fmt.Sprintf("graphviz loaded: %v\n", c.graphviz)}
		if _, ok := loadedProbes["gtk"]; ok {
			want = append(want, "gtk loaded: false\n")
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("modex %s: want %q in\n%s", c.args, w, out)
			}
		}
	}
}
