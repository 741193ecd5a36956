package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

func waitShown(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(60 * time.Second):
		t.Fatal("the exploration never reached the screen")
	}
}

func TestWorkbenchExploresChat(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("test")
	defer w.Close()
	wb := NewWorkbench(w)
	shown := make(chan struct{}, 4)
	wb.OnShown(func() { shown <- struct{}{} })
	if err := wb.Open("../projects/chat/chat.toml"); err != nil {
		t.Fatal(err)
	}
	if wb.configs.Selected != "figure1" || !strings.Contains(wb.source.Text(), "def Deliver") {
		t.Fatalf("project not shown: config %q", wb.configs.Selected)
	}
	test.Tap(wb.explore)
	waitShown(t, shown)
	if x := wb.Last(); x == nil || len(x.Graph().States) != 9 {
		t.Fatalf("exploration result %v", x)
	}
	if !strings.Contains(wb.Status(), "9 states, 11 transitions") {
		t.Errorf("status %q", wb.Status())
	}
	if wb.image.Image == nil || wb.image.Image.Bounds().Dx() < 200 {
		t.Error("no graph drawn")
	}
	// Another configuration explores to a different graph.
	wb.configs.SetSelected("hi_bye")
	test.Tap(wb.explore)
	waitShown(t, shown)
	if n := len(wb.Last().Graph().States); n == 9 {
		t.Errorf("hi_bye gave the figure1 graph")
	}
}

func TestWorkbenchShowsModelError(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("test")
	defer w.Close()
	wb := NewWorkbench(w)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.star"), []byte("def init():\n    return {\"x\": 1\n"), 0o644)
	if err := wb.Open(filepath.Join(dir, "m.star")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wb.Status(), "m.star:3:1: syntax error") || !wb.explore.Disabled() {
		t.Errorf("status %q, explore disabled %v", wb.Status(), wb.explore.Disabled())
	}
}
