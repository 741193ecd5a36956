package configeditor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/projects"
)

const shopModel = `
ITEMS = ["book", "pen", "cup", "hat", "mug", "lamp", "rug", "fan", "jar", "pot"]

def init():
    return {"orders": 0}

def Order(s, item, quantity, delivery, payment):
    require(s.orders < 1)
    s.orders += 1

def Pay(s, amount, card):
    s.orders = 0

actions = [Order, Pay]
domains = {
    Order: {"item": ITEMS, "quantity": range(10), "delivery": range(10), "payment": range(10)},
    Pay: {"amount": [1, 2], "card": ["visa"]},
}
`

const shopProject = `name = "shop"
model = "shop.star"

[configs.base]

[configs.pairwise]
[configs.pairwise.actions.Order]
combine = "pairwise"

[configs.child]
extends = "pairwise"
`

// hintText is the text of the editor's labels that say how many
// combinations the configuration tries.
func hintText(ed *Editor) string {
	var out []string
	for _, o := range test.LaidOutObjects(ed.Content()) {
		if l, ok := o.(*widget.Label); ok && l.Visible() && strings.Contains(l.Text, "parameter combinations") {
			out = append(out, l.Text)
		}
	}
	return strings.Join(out, "; ")
}

// An action of three parameters or more has a combine choice (the full
// product, pairwise, n-wise below its number of parameters) that writes
// the configuration's own setting, shows what it inherits, and says how
// many combinations that gives in the initial state.
func TestCombineChoice(t *testing.T) {
	test.NewTempApp(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "shop.star"), []byte(shopModel), 0o644)
	path := filepath.Join(dir, "shop.toml")
	os.WriteFile(path, []byte(shopProject), 0o644)
	p, err := projects.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	changes := 0
	ed := New(p, m, "base", func() { changes++ })
	test.NewTempWindow(t, ed.Content()).Resize(fyne.NewSize(400, 3000))
	if ed.Choice("actions.Pay.combine") != nil {
		t.Error("Pay, of two parameters, has a combine choice")
	}
	sel := ed.Choice("actions.Order.combine")
	if sel == nil {
		t.Fatal("Order has no combine choice")
	}
	if want := []string{"full product", "pairwise", "3-wise"}; !slices.Equal(sel.Options, want) || sel.Selected != "full product" {
		t.Errorf("options %v, selected %q; want %v and the full product", sel.Options, sel.Selected, want)
	}
	if h := hintText(ed); h != "" {
		t.Errorf("the full product has a hint: %q", h)
	}
	sel.SetSelected("pairwise")
	if as := p.Configs["base"].Actions["Order"]; as == nil || as.Combine != "pairwise" || changes != 1 {
		t.Fatalf("after choosing pairwise: %+v, %d changes", as, changes)
	}
	cfg, err := p.Build(m, "base")
	if err != nil || cfg.Actions[0].Combine != 2 {
		t.Fatalf("built: %v", err)
	}
	if h := hintText(ed); !strings.HasPrefix(h, "pairwise, ") || !strings.HasSuffix(h, " of 10,000 parameter combinations in the initial state") {
		t.Errorf("hint %q", h)
	}

	// Inherited pairwise shows; the full product overrides it.
	child := New(p, m, "child", nil)
	test.NewTempWindow(t, child.Content()).Resize(fyne.NewSize(400, 3000))
	csel := child.Choice("actions.Order.combine")
	if csel.Selected != "pairwise" || !strings.HasPrefix(hintText(child), "pairwise, ") {
		t.Errorf("child shows %q, hint %q; want the inherited pairwise", csel.Selected, hintText(child))
	}
	csel.SetSelected("full product")
	if cfg, err := p.Build(m, "child"); err != nil || cfg.Actions[0].Combine != 1 || hintText(child) != "" {
		t.Errorf("child after the full product: %v, hint %q", err, hintText(child))
	}
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "combine = 'full'") || !strings.Contains(string(data), "combine = 'pairwise'") {
		t.Errorf("saved:\n%s", data)
	}
}
