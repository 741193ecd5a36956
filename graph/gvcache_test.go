package graph_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/cgraph"
	"github.com/goccy/go-graphviz/gvc"

	"github.com/modex/modex/graph"
)

// TestGraphvizCacheHelper is run by TestGraphvizCacheNotInSharedTemp in a
// child process: it lays out a graph, so that go-graphviz is used, and
// reports whether Graphviz was loaded before and after, and the child's
// temporary directory.
func TestGraphvizCacheHelper(t *testing.T) {
	if os.Getenv("MODEX_GVCACHE_HELPER") == "" {
		t.Skip("run by TestGraphvizCacheNotInSharedTemp")
	}
	fmt.Printf("loaded before the first layout: %v\n", graphviz.Loaded())
	if err := graph.RenderDOT(context.Background(), []byte("digraph { a -> b }"), graph.SVG, "dot", io.Discard); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("loaded after it: %v\n", graphviz.Loaded())
	os.Stdout.WriteString("TMPDIR=" + os.TempDir() + "\n")
}

// TestGraphvizCacheNotInSharedTemp: go-graphviz's compiled code is cached
// in the user's own cache directory, never in the shared temporary
// directory where another account could have put code of its own; the
// process's TMPDIR is as it was given (Modex once changed it to steer the
// cache). Where the cache directory is not the user's alone, no cache is
// kept at all. Graphviz is loaded by the first layout, not before.
func TestGraphvizCacheNotInSharedTemp(t *testing.T) {
	cases := []struct {
		name      string
		prepare   func(t *testing.T, cache string)
		wantCache bool
	}{
		{"own cache directory", func(*testing.T, string) {}, true},
		{"cache folder writable by others", func(t *testing.T, cache string) {
			if err := os.Chmod(cache, 0o777); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shared, cache := t.TempDir(), t.TempDir()
			c.prepare(t, cache)
			cmd := exec.Command(os.Args[0], "-test.run=^TestGraphvizCacheHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "MODEX_GVCACHE_HELPER=1", "TMPDIR="+shared, "XDG_CACHE_HOME="+cache, "HOME="+cache)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "loaded before the first layout: false\n") || !strings.Contains(string(out), "loaded after it: true\n") {
				t.Errorf("Graphviz should load at the first layout, not when the process starts:\n%s", out)
			}
			if !strings.Contains(string(out), "TMPDIR="+shared+"\n") {
				t.Errorf("the child's TMPDIR was not put back to %s:\n%s", shared, out)
			}
			if _, err := os.Stat(filepath.Join(shared, "go-graphviz")); !os.IsNotExist(err) {
				t.Errorf("go-graphviz made its cache in the shared temporary directory (%v)", err)
			}
			matches, _ := filepath.Glob(filepath.Join(cache, "modex", "graphviz", "wazero-*", "*"))
			if c.wantCache && len(matches) == 0 {
				t.Errorf("no compiled code cached under %s", filepath.Join(cache, "modex", "graphviz"))
			}
			if !c.wantCache && len(matches) > 0 {
				t.Errorf("compiled code cached in a directory others can write: %v", matches)
			}
		})
	}
}

// TestGraphvizEnumsLoaded: go-graphviz's package-level copies of Graphviz's
// enum values are set when Graphviz loads (at first use, in Modex's copy),
// not left at the placeholders they held before; with placeholders its own
// PNG renderer drew a black image. The values are those upstream
// go-graphviz v0.2.9 has after its eager init.
func TestGraphvizEnumsLoaded(t *testing.T) {
	if err := graph.RenderDOT(context.Background(), []byte("digraph { a -> b }"), graph.SVG, "dot", io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"gvc.RenderYGoesDown", int(gvc.RenderYGoesDown), 1 << 12},
		{"gvc.RenderDoesTransform", int(gvc.RenderDoesTransform), 1 << 13},
		{"gvc.DeviceDoesTrueColor", int(gvc.DeviceDoesTrueColor), 1 << 8},
		{"gvc.PenSolid", int(gvc.PenSolid), 3},
		{"cgraph.NODE", int(cgraph.NODE), 1},
		{"cgraph.EDGE", int(cgraph.EDGE), 2},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d after loading, want %d", c.name, c.got, c.want)
		}
	}
}
