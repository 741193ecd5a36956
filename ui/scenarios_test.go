package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A configuration with a scenario explores the product; editing the
// scenario in the editor explores the new product; a wrong scenario is an
// error in its field at its column, and nothing is explored from it.
func TestScenarioInTheWorkbench(t *testing.T) {
	b := newBench(t)
	path := copyProject(t, "chat")
	data, err := os.ReadFile(filepath.Join("..", "projects", "chat", "phases.star"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "phases.star"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	b.open(path)
	b.wait()
	for _, config := range []string{"figure1_scenario", "figure1_machine"} {
		b.wb.configs.SetSelected(config)
		b.wait()
		if !strings.Contains(b.wb.Status(), "chat ["+config+"]: 9 states (7 model states, 2 passive), 10 transitions (2 timeouts)") {
			t.Fatalf("status %q", b.wb.Status())
		}
	}
	b.wb.configs.SetSelected("figure1_scenario")
	b.wait()
	f := b.wb.Editor().Field("scenarios.0")
	if f == nil || f.Entry.Text != "Create{2}; Enter{2}; Post*" {
		t.Fatalf("no scenario field, or not the scenario: %v", f)
	}
	f.Entry.SetText("Create{2}; Enter{2}; Post(Client1, _)*")
	b.wait()
	x := b.wb.Last()
	for i := range x.Trans {
		if tr := &x.Trans[i]; x.Model.Info().Actions[tr.Action].Name == "Post" {
			if args := x.ArgsOf(tr); !strings.HasPrefix(args[0].String(), "Client1") {
				t.Errorf("a Post by %s, outside the edited scenario", args[0])
			}
		}
	}
	if !strings.Contains(b.wb.Status(), "chat [figure1_scenario]: 7 states (6 model states, 1 passive), 7 transitions (1 timeout)") {
		t.Errorf("status after the edit %q", b.wb.Status())
	}
	f.Entry.SetText("Create{2}; Jump")
	if got := f.Error.Text; !f.Error.Visible() || got != "column 12: scenario: unknown action Jump (the model has Create, Enter, Post, Deliver)" {
		t.Errorf("error %q (shown %v)", got, f.Error.Visible())
	}
	if inv := b.wb.Editor().Invalid(); len(inv) != 1 || !strings.HasPrefix(inv[0], "scenarios.0: ") {
		t.Errorf("invalid fields %v", inv)
	}
}
