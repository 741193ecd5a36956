package configeditor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/projects"
)

// The search choice and the walks' settings write the configuration's own
// settings; a configuration shows what it inherits, and opening the
// editor changes nothing.
func TestSearchSettings(t *testing.T) {
	test.NewTempApp(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "shop.star"), []byte(shopModel), 0o644)
	path := filepath.Join(dir, "shop.toml")
	os.WriteFile(path, []byte(shopProject+"\n[configs.sim]\nsearch = \"walks\"\nwalks = 50\n\n[configs.simchild]\nextends = \"sim\"\n"), 0o644)
	p, err := projects.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	changes := 0
	child := New(p, m, "simchild", func() { changes++ })
	test.NewTempWindow(t, child.Content()).Resize(fyne.NewSize(400, 3000))
	if sel := child.Choice("search"); sel == nil || sel.Selected != searchNames[1] || changes != 0 || p.Configs["simchild"].Search != "" {
		t.Fatalf("simchild: %v, %d changes, own search %q", sel, changes, p.Configs["simchild"].Search)
	}
	if f := child.Field("walks"); f == nil || f.Entry.Text != "" || f.Entry.PlaceHolder != "50" {
		t.Errorf("walks field %+v", f)
	}
	ed := New(p, m, "base", func() { changes++ })
	test.NewTempWindow(t, ed.Content()).Resize(fyne.NewSize(400, 3000))
	ed.Choice("search").SetSelected(searchNames[1])
	ed.Field("walks").Entry.SetText("20")
	ed.Field("walk_depth").Entry.SetText("7")
	ed.Field("seed").Entry.SetText("42")
	cfg, err := p.Build(m, "base")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Search != explore.SearchWalks || cfg.Walks != 20 || cfg.WalkDepth != 7 || cfg.Seed != 42 {
		t.Errorf("built %v %d %d %d", cfg.Search, cfg.Walks, cfg.WalkDepth, cfg.Seed)
	}
	ed.Field("seed").Entry.SetText("x")
	if got := ed.Field("seed").Error.Text; got != "a whole number" {
		t.Errorf("seed error %q", got)
	}
	ed.Choice("search").SetSelected(searchNames[0])
	if p.Configs["base"].Search != "bfs" {
		t.Errorf("search %q", p.Configs["base"].Search)
	}
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "walk_depth = 7") {
		t.Errorf("saved:\n%s", data)
	}
}
