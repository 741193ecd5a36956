package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "early.modex/localefix" // quiet Fyne under the C locale
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

type bench struct {
	t      *testing.T
	wb     *Workbench
	win    fyne.Window
	shown  int      // explorations shown so far (counted on the UI goroutine)
	asked  []string // consent prompts shown
	waited int      // explorations wait has consumed
}

func newBench(t *testing.T) *bench {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("test")
	w.Resize(fyne.NewSize(1400, 860))
	t.Cleanup(w.Close)
	b := &bench{t: t, win: w}
	b.wb = NewWorkbench(w, a, nil)
	b.wb.AutoExplore = true
	// Adapter commands: a consent file of the test's own, every prompt
	// answered yes and remembered in b.asked.
	b.wb.consent = &Consent{File: filepath.Join(t.TempDir(), "allowed-commands")}
	b.wb.confirm = func(title, msg string, ok func()) {
		b.asked = append(b.asked, msg)
		ok()
	}
	b.wb.OnShown(func() { b.shown++ })
	return b
}

// wait waits for the next finished exploration to reach the screen.
func (b *bench) wait() {
	b.t.Helper()
	if !pump(60*time.Second, func() bool { return b.shown > b.waited }) {
		b.t.Fatal("the exploration never reached the screen")
	}
	b.waited++
}

func (b *bench) open(path string) {
	b.t.Helper()
	if err := b.wb.Open(path); err != nil {
		b.t.Fatal(err)
	}
}

func copyProject(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{name + ".toml", name + ".star"} {
		data, err := os.ReadFile(filepath.Join("..", "projects", name, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	return filepath.Join(dir, name+".toml")
}

func TestOpenExploreHover(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	wb := b.wb
	if got := len(wb.Last().Graph().States); got != 9 {
		t.Fatalf("%d states, want 9", got)
	}
	if !strings.Contains(wb.Status(), "chat [figure1]: 9 states (7 model states, 2 passive), 10 transitions (2 timeouts)") {
		t.Errorf("status %q", wb.Status())
	}
	if !strings.Contains(wb.model_.Text(), "def Deliver") {
		t.Error("model source not shown")
	}
	// Hover the first passive state: the tooltip shows its variables.
	g := wb.Graph()
	var target fyne.Position
	found := false
	for _, n := range g.Layout().Nodes {
		if n.State >= 0 && g.Doc().States[n.State].Kind == "passive" {
			target, found = g.ToScreen(n.Center), true
			break
		}
	}
	if !found {
		t.Fatal("no passive state drawn")
	}
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(g)
	test.MoveMouse(b.win.Canvas(), abs.Add(target))
	tip := g.Tooltip()
	for _, want := range []string{"(passive)", "members = {", "Client2: {Client1: [\"hi\"]}", "clients = [Client1, Client2]"} {
		if !strings.Contains(tip, want) {
			t.Errorf("tooltip lacks %q:\n%s", want, tip)
		}
	}
	test.MoveMouse(b.win.Canvas(), abs.Add(fyne.NewPos(2, 2)))
	if g.Tooltip() != "" {
		t.Errorf("tooltip stays away from states: %q", g.Tooltip())
	}
	// Clicking a state fills the details panel and marks its path.
	test.TapAt(g, target)
	if g.Selected() < 0 || len(g.Marks()) == 0 {
		t.Errorf("selection %d, marks %v", g.Selected(), g.Marks())
	}
}

func TestEditFilterReExplores(t *testing.T) {
	b := newBench(t)
	b.open(copyProject(t, "chat"))
	b.wait()
	before := len(b.wb.Last().Graph().States)
	f := b.wb.Editor().Field("filters.0")
	if f == nil {
		t.Fatal("no filter field")
	}
	test.Type(f.Entry, "") // focus
	f.Entry.SetText("pending(s) < 3")
	b.wait()
	after := len(b.wb.Last().Graph().States)
	if after == before {
		t.Errorf("still %d states after widening the filter", after)
	}
	if !b.wb.Dirty() || !strings.HasSuffix(b.win.Title(), "*") {
		t.Errorf("edit not marked unsaved: title %q", b.win.Title())
	}
	if err := b.wb.Save(); err != nil {
		t.Fatal(err)
	}
	if b.wb.Dirty() {
		t.Error("still dirty after saving")
	}
	data, _ := os.ReadFile(b.wb.s.project.Path)
	if !strings.Contains(string(data), "pending(s) < 3") {
		t.Errorf("saved file lacks the new filter:\n%s", data)
	}
}

func TestBadExpressionShowsError(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	before := b.wb.Last()
	for path, text := range map[string]string{
		"filters.0":               "pending(s) <",
		"actions.Post.enabled":    "mode(s) == posting",
		"actions.Post.params.msg": "@Nope",
		"groupings.0":             "ignore_entering_orderz(s)",
		"max_states":              "lots",
		"actions.Post.weight":     `"x"`,
	} {
		f := b.wb.Editor().Field(path)
		if f == nil {
			t.Fatalf("no field %s", path)
		}
		f.Entry.SetText(text)
		if !f.Error.Visible() || f.Error.Text == "" {
			t.Errorf("%s = %q: no error shown", path, text)
		}
		t.Logf("%s = %q: %s", path, text, f.Error.Text)
	}
	if f := b.wb.Editor().Field("filters.0"); !strings.Contains(f.Error.Text, "column") {
		t.Errorf("filter error %q does not say where", f.Error.Text)
	}
	idle(500 * time.Millisecond) // past the re-explore delay: nothing should start
	if b.wb.Last() != before {
		t.Error("an invalid edit re-explored")
	}
}

func TestCancelKeepsPartialGraph(t *testing.T) {
	b := newBench(t)
	b.wb.AutoExplore = false
	b.open("testdata/counter.star")
	b.wb.Explore()
	// Let it run past the drawing limit, then cancel.
	pump(30*time.Second, func() bool {
		var n int
		fmt.Sscanf(strings.ReplaceAll(b.wb.counts.Text, ",", ""), "%d states", &n) // 1,234 states
		return n > 2*DrawLimit
	})
	b.wb.Cancel()
	b.wait()
	x := b.wb.Last()
	if x == nil || x.Stats.Complete || x.Stats.StoppedBy != "cancelled" {
		t.Fatalf("exploration %+v", x)
	}
	if len(x.States) < 2 {
		t.Errorf("kept %d states", len(x.States))
	}
	if !strings.Contains(b.wb.Status(), "incomplete: cancelled") {
		t.Errorf("status %q", b.wb.Status())
	}
	// The counter's graph is far above the drawing limit: a neighbourhood is shown.
	if v := b.wb.Graph().Doc(); v == nil || len(v.States) >= len(x.States) || !b.wb.note.Visible() {
		t.Errorf("large graph not shown as a neighbourhood")
	}
}

func TestFindStates(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	b.wb.s.find.SetText("pending(s) == 1")
	b.wb.Find()
	pump(10*time.Second, func() bool { return strings.Contains(b.wb.Status(), "match") })
	if !strings.Contains(b.wb.Status(), "4 states match") || len(b.wb.Graph().Marks()) != 4 {
		t.Errorf("status %q, %d marks", b.wb.Status(), len(b.wb.Graph().Marks()))
	}
	b.wb.s.find.SetText("pending(s) ==")
	b.wb.Find()
	if b.wb.s.findErr.Text == "" {
		t.Error("bad find expression shows no error")
	}
}

func TestModelErrorShown(t *testing.T) {
	b := newBench(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.star"), []byte("def init():\n    return {\"x\": 1\n"), 0o644)
	b.open(filepath.Join(dir, "m.star"))
	if !strings.Contains(b.wb.Status(), "m.star:3:1: syntax error") || !b.wb.explore.Disabled() {
		t.Errorf("status %q, explore disabled %v", b.wb.Status(), b.wb.explore.Disabled())
	}
	if b.wb.tabs.SelectedIndex() != 1 {
		t.Error("the model tab is not shown")
	}
}

// Half-typed expressions do not change the graph: a valid prefix typed on
// the way to an invalid text is not explored; an expression that compiles
// but fails when it runs shows its error under the field at once.
func TestHalfTypedExpression(t *testing.T) {
	b := newBench(t)
	b.open(copyProject(t, "chat"))
	b.wait()
	before := b.wb.Last()
	f := b.wb.Editor().Field("filters.0")
	f.Entry.SetText("pending(s)")   // valid: a re-exploration is scheduled
	f.Entry.SetText("pending(s) <") // invalid: it is called off
	idle(600 * time.Millisecond)
	if b.wb.Last() != before {
		t.Error("the valid prefix of a half-typed filter was explored")
	}
	f.Entry.SetText("s.clients < 2")
	if !f.Error.Visible() || !strings.Contains(f.Error.Text, "fails on the initial state") {
		t.Errorf("run-time error not shown under the field: %q", f.Error.Text)
	}
	idle(600 * time.Millisecond)
	if b.wb.Last() != before {
		t.Error("a filter failing on the initial state was explored")
	}
}

// Ctrl+S saves while a text field has the focus (a focused Fyne entry
// takes every shortcut).
func TestSaveShortcutInField(t *testing.T) {
	b := newBench(t)
	b.open(copyProject(t, "chat"))
	b.wait()
	f := b.wb.Editor().Field("filters.0")
	b.win.Canvas().Focus(f.Entry)
	f.Entry.SetText("pending(s) < 3")
	if !b.wb.Dirty() {
		t.Fatal("the edit is not marked unsaved")
	}
	f.Entry.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault})
	if b.wb.Dirty() {
		t.Error("Ctrl+S in a focused field did not save")
	}
	// The entry's own shortcuts still work.
	f.Entry.TypedShortcut(&fyne.ShortcutSelectAll{})
	if f.Entry.SelectedText() != "pending(s) < 3" {
		t.Errorf("select all in the field: %q", f.Entry.SelectedText())
	}
}

// The unsaved-changes dialog offers Save, Don't Save and Cancel.
func TestUnsavedChangesDialog(t *testing.T) {
	b := newBench(t)
	b.open(copyProject(t, "chat"))
	b.wait()
	n := 2
	edit := func() {
		n++
		b.wb.Editor().Field("filters.0").Entry.SetText(fmt.Sprintf("pending(s) < %d", n))
		if !b.wb.Dirty() {
			t.Fatal("not dirty after an edit")
		}
	}
	press := func(label string) bool {
		ran := false
		b.wb.confirmDiscard(func() { ran = true })
		top := b.win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("no dialog")
		}
		var btn *widget.Button
		var walk func(o fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			if bt, ok := o.(*widget.Button); ok && bt.Text == label {
				btn = bt
			}
			if c, ok := o.(*fyne.Container); ok {
				for _, x := range c.Objects {
					walk(x)
				}
			}
			if w, ok := o.(fyne.Widget); ok {
				for _, x := range test.WidgetRenderer(w).Objects() {
					walk(x)
				}
			}
		}
		walk(top)
		if btn == nil {
			t.Fatalf("no %q button in the dialog", label)
		}
		test.Tap(btn)
		return ran
	}
	edit()
	if press("Cancel") || !b.wb.Dirty() {
		t.Error("Cancel went on or lost the changes")
	}
	if !press("Save") || b.wb.Dirty() {
		t.Error("Save did not save and go on")
	}
	edit()
	if !press("Don't Save") {
		t.Error("Don't Save did not go on")
	}
	// The keys: Esc cancels, Enter saves (and goes on), whatever had the
	// focus before.
	key := func(k fyne.KeyName) bool {
		ran := false
		b.win.Canvas().Focus(b.wb.Editor().Field("filters.0").Entry)
		b.wb.confirmDiscard(func() { ran = true })
		if b.win.Canvas().Overlays().Top() == nil {
			t.Fatal("no dialog")
		}
		if f := b.win.Canvas().Focused(); f != nil {
			t.Fatalf("a field behind the dialog has the keys: %T", f)
		}
		b.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: k})
		if top := b.win.Canvas().Overlays().Top(); top != nil && top.Visible() {
			t.Errorf("%s left the dialog open", k)
		}
		return ran
	}
	edit()
	if key(fyne.KeyEscape) || !b.wb.Dirty() {
		t.Error("Esc went on or lost the changes")
	}
	if !key(fyne.KeyReturn) || b.wb.Dirty() {
		t.Error("Enter did not save and go on")
	}
	if b.wb.modal != nil {
		t.Error("the dialog's keys outlived it")
	}
}

// recordingDialogs remembers where file dialogs would start.
type recordingDialogs struct{ dirs []string }

func (r *recordingDialogs) Open(title, dir string, exts []string, done func(string)) {
	r.dirs = append(r.dirs, dir)
	done("")
}

func (r *recordingDialogs) Save(title, suggested string, exts []string, done func(string)) {
	r.dirs = append(r.dirs, filepath.Dir(suggested))
	done("")
}

// File dialogs start in the open project's folder, not in the working
// directory.
func TestDialogsStartInProjectFolder(t *testing.T) {
	b := newBench(t)
	path := copyProject(t, "chat")
	b.open(path)
	b.wait()
	rec := &recordingDialogs{}
	b.wb.dialogs = rec
	b.wb.OpenDialog()
	b.wb.s.offline.OpenTrace()
	b.wb.s.offline.Load()
	b.wb.s.offline.Generate()
	b.wb.s.offline.Save()
	if len(rec.dirs) != 4 {
		t.Fatalf("%d dialogs: %v", len(rec.dirs), rec.dirs)
	}
	for _, d := range rec.dirs {
		if d != filepath.Dir(path) {
			t.Errorf("a dialog starts in %q, not in the project's folder %q", d, filepath.Dir(path))
		}
	}
}

// A graph too large to draw whole shows as an overview: by the default
// expression at first, then by one the user types; clicking a class shows
// its states.
func TestOverviewOfLargeGraph(t *testing.T) {
	b := newBench(t)
	b.open("../projects/webshop/webshop.toml")
	b.wait()
	b.wb.configs.SetSelected("more_items")
	b.wait()
	v := b.wb.Graph().Doc()
	if v == nil || len(v.States) == 0 || v.States[0].Count == 0 || !strings.Contains(b.wb.note.Text, "Overview by len(s.clients): 4 classes, 3 arcs — chosen from the model") {
		t.Fatalf("no overview by the number of clients: note %q", b.wb.note.Text)
	}
	if tip := graphview.StateTooltip(&v.States[2]); !strings.Contains(tip, "100 states in this class") || !strings.Contains(tip, "sample = S") || !strings.Contains(tip, "clients = ") {
		t.Errorf("class tooltip without count or sample state:\n%s", tip)
	}
	b.wb.overviewBy.SetText("len(s.clients)")
	b.wb.overviewBy.OnSubmitted("")
	b.wait()
	v = b.wb.Graph().Doc()
	var counts []string
	for _, s := range v.States {
		counts = append(counts, fmt.Sprintf("%s:%d", s.Label, s.Count))
	}
	if strings.Join(counts, " ") != "len(s.clients) = 0:1 len(s.clients) = 1:10 len(s.clients) = 2:100 len(s.clients) = 3:1000" {
		t.Fatalf("classes %v; note %q", counts, b.wb.note.Text)
	}
	b.wb.Graph().OnSelect(2) // the class of two clients
	b.wait()
	v = b.wb.Graph().Doc()
	if v == nil || v.States[0].Count != 0 || b.wb.largeMode.Selected != largeNeighbourhood || !strings.Contains(b.wb.note.Text, "The class len(s.clients) = 2: 100 states") {
		t.Errorf("clicking a class: mode %q, note %q", b.wb.largeMode.Selected, b.wb.note.Text)
	}
	// Only the class's states: two clients each.
	for _, s := range v.States {
		for _, vr := range s.Vars {
			if vr.Name == "clients" && strings.Count(vr.Value, ": ") < 2 {
				t.Errorf("%s is not in the class of two clients: %s", s.ID, vr.Value)
			}
		}
	}
}

// The minimised view: the conference's agents-2 graph (10 states) merges
// to 4 classes, each with the number of states it stands for; clicking one
// shows its states; unticking shows the graph again.
func TestMinimisedView(t *testing.T) {
	b := newBench(t)
	b.open("../projects/conference/conference.toml") // agents-2 by default
	b.wait()
	if n := len(b.wb.Graph().Doc().States); n != 10 {
		t.Fatalf("agents-2: %d states, want 10", n)
	}
	b.wb.minimal.SetChecked(true)
	b.wait()
	v := b.wb.Graph().Doc()
	total, big := 0, -1
	for i, s := range v.States {
		if !strings.HasPrefix(s.ID, "M") || s.Count == 0 {
			t.Fatalf("state %s count %d: not a class", s.ID, s.Count)
		}
		total += s.Count
		if s.Count > 1 {
			big = i
		}
	}
	if len(v.States) != 4 || total != 10 || big < 0 || !strings.Contains(b.wb.note.Text, "Minimised: 10 states") {
		t.Fatalf("minimised: %d classes holding %d states; note %q", len(v.States), total, b.wb.note.Text)
	}
	want := v.States[big].Count
	b.wb.Graph().OnSelect(big)
	b.wait()
	if center := b.wb.s.center; !b.wb.s.within[center] {
		t.Errorf("the opened class is centred on %s, not one of its states %v", center, b.wb.s.within)
	}
	if v = b.wb.Graph().Doc(); len(v.States) < want || !strings.Contains(b.wb.note.Text, fmt.Sprintf(": %d states", want)) {
		t.Fatalf("opening a class of %d: %d states drawn, note %q", want, len(v.States), b.wb.note.Text)
	}
	b.wb.minimal.SetChecked(false)
	b.wait()
	if n := len(b.wb.Graph().Doc().States); n != 10 {
		t.Errorf("unticked: %d states, want the 10 of the graph", n)
	}
	// The thread pool's small (223 states, 157 minimised) drawn whole:
	// each class stands for one of its own states.
	b.open("../projects/threadpool/threadpool.toml")
	b.wait()
	b.wb.largeMode.SetSelected(largeWhole)
	b.wait()
	b.wb.minimal.SetChecked(true)
	b.wait()
	if n := len(b.wb.Graph().Doc().States); n != 157 {
		t.Fatalf("the thread pool minimised: %d states, want 157; note %q", n, b.wb.note.Text)
	}
	for id, state := range b.wb.s.classes {
		if !b.wb.s.members[id][state] {
			t.Fatalf("class %s stands for %s, which is not one of its states", id, state)
		}
	}
}

// Path views: the chat's Figure 1, the path to a selected state as a
// chain with the other moves folded; clicking a state on it selects it
// without leaving the view; path: — draws the graph again.
func TestPathView(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	full := len(b.wb.Graph().Doc().States)
	last := b.wb.Graph().Doc().States[full-1].ID
	b.wb.SelectState(last)
	b.wb.pathMode.SetSelected(pathToHere)
	if !pump(10*time.Second, func() bool { return strings.Contains(b.wb.note.Text, "The shortest path") }) {
		t.Fatal("the path view was not drawn")
	}
	v := b.wb.Graph().Doc()
	folds, chain := 0, 0
	for _, s := range v.States {
		if strings.HasPrefix(s.ID, "fold_") {
			folds++
		} else {
			chain++
		}
	}
	if chain < 2 || v.States[0].ID != "S0" || b.wb.graph.Selected() != v.StateIndex(last) || !strings.Contains(b.wb.note.Text, "The shortest path from the initial state S0 to "+last) {
		t.Fatalf("path view: %d states on the chain, %d folds, note %q", chain, folds, b.wb.note.Text)
	}
	b.wb.graph.OnSelect(0)
	if b.wb.Graph().Doc() != v || b.wb.s.center != "S0" {
		t.Errorf("clicking S0 on the path left the view or did not select it (center %q)", b.wb.s.center)
	}
	// Figure 1's S6 and S8 are deadlocks (messages pending, nothing to do).
	b.wb.pathMode.SetSelected(pathToError)
	if !pump(10*time.Second, func() bool { return strings.Contains(b.wb.note.Text, "nearest error state or deadlock") }) {
		t.Fatalf("no path to a deadlock: note %q", b.wb.note.Text)
	}
	v = b.wb.Graph().Doc()
	end := ""
	for _, s := range v.States {
		if s.Kind == "terminal" {
			end = s.ID
		}
	}
	if end != "S6" && end != "S8" {
		t.Errorf("the path to an error ends at %q", end)
	}
	b.wb.SelectState("S6")
	b.wb.pathMode.SetSelected(pathAccepting)
	if !strings.Contains(b.wb.status.Text, "No accepting state can be reached from S6") || b.wb.pathMode.Selected != pathNone {
		t.Errorf("no accepting state reachable: status %q, mode %q", b.wb.status.Text, b.wb.pathMode.Selected)
	}
	b.wb.pathMode.SetSelected(pathNone)
	b.wait()
	if len(b.wb.Graph().Doc().States) != full {
		t.Errorf("path: — shows %d states, want the graph's %d", len(b.wb.Graph().Doc().States), full)
	}
}

// Find lists its matches; clicking one goes there; ▶ and ◀ step through
// them, moving the neighbourhood of a large graph.
func TestFindListAndNavigation(t *testing.T) {
	b := moreItemsNeighbourhood(t)
	b.wb.s.find.SetText("len(s.clients) == 3")
	b.wb.Find()
	pump(10*time.Second, func() bool { return strings.Contains(b.wb.Status(), "match") })
	d := b.wb.s.details
	if len(b.wb.s.matches) != 1000 || len(d.Rows()) != 1+graphview.MaxMatchesListed {
		t.Fatalf("%d matches, %d rows listed", len(b.wb.s.matches), len(d.Rows()))
	}
	// Clicking the second match goes there: the neighbourhood moves.
	test.Tap(d.Rows()[2].(*widgets.Button))
	b.wait()
	target := b.wb.s.matches[1]
	if v := b.wb.Graph().Doc(); v == nil || v.StateIndex(target) < 0 || b.wb.s.center != target {
		t.Errorf("the view is not around %s (center %s)", target, b.wb.s.center)
	}
	b.wb.NextMatch(1)
	b.wait()
	if b.wb.s.center != b.wb.s.matches[0] {
		t.Errorf("▶: center %s, status %q", b.wb.s.center, b.wb.Status())
	}
	b.wb.NextMatch(-1)
	b.wait()
	if b.wb.s.center != b.wb.s.matches[999] {
		t.Errorf("◀ from the first goes to the last: center %s", b.wb.s.center)
	}
}

// Ctrl+click on a second state compares it with the selected one: the
// variables that differ side by side.
func TestCompareTwoStates(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	g := b.wb.Graph()
	at := func(id string) fyne.Position {
		i := g.Doc().StateIndex(id)
		for _, n := range g.Layout().Nodes {
			if n.State == i {
				return g.ToScreen(n.Center)
			}
		}
		t.Fatalf("no node %s", id)
		return fyne.Position{}
	}
	test.TapAt(g, at("S5"))
	if g.Selected() != g.Doc().StateIndex("S5") {
		t.Fatalf("S5 not selected")
	}
	g.MouseDown(&desktop.MouseEvent{Modifier: fyne.KeyModifierShortcutDefault})
	test.TapAt(g, at("S7"))
	g.MouseDown(&desktop.MouseEvent{})
	d := b.wb.s.details
	var texts []string
	for _, o := range d.Rows() {
		switch x := o.(type) {
		case *widget.Label:
			texts = append(texts, x.Text)
		case *fyne.Container:
			for _, c := range x.Objects {
				if l, ok := c.(*widget.Label); ok {
					texts = append(texts, l.Text)
				}
			}
		}
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "S5 and S7: the variables that differ") || !strings.Contains(all, "members") ||
		!strings.Contains(all, "Equal: clients") || g.Selected() != g.Doc().StateIndex("S5") {
		t.Errorf("comparison:\n%s", all)
	}
}

// Back and Forward go through the selections; clicking a state of a graph
// shown in part recentres there.
func TestBackForward(t *testing.T) {
	b := moreItemsNeighbourhood(t)
	g := b.wb.Graph()
	click := func() string { // a state of the view other than the centre
		v := g.Doc()
		for i, s := range v.States {
			if s.ID != b.wb.s.center && s.Rim {
				g.OnSelect(i)
				b.wait()
				return s.ID
			}
		}
		t.Fatal("no frontier state to click")
		return ""
	}
	first := click()
	if b.wb.s.center != first {
		t.Fatalf("clicking %s did not recentre (centre %s)", first, b.wb.s.center)
	}
	second := click()
	b.wb.Back()
	b.wait()
	if b.wb.s.center != first {
		t.Errorf("Back: centre %s, want %s", b.wb.s.center, first)
	}
	b.wb.Forward()
	b.wait()
	if b.wb.s.center != second {
		t.Errorf("Forward: centre %s, want %s", b.wb.s.center, second)
	}
}

// A layout over its time budget gives way to the overview by depth, saying
// so, instead of leaving the view waiting.
func TestLayoutBudget(t *testing.T) {
	old := LayoutBudget
	LayoutBudget = time.Nanosecond
	defer func() { LayoutBudget = old }()
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	if !strings.Contains(b.wb.note.Text, "took over") {
		t.Errorf("note %q", b.wb.note.Text)
	}
}

// moreItemsNeighbourhood opens the web shop's 1,111-state more_items graph
// shown as neighbourhoods.
func moreItemsNeighbourhood(t *testing.T) *bench {
	b := newBench(t)
	b.open("../projects/webshop/webshop.toml")
	b.wait()
	b.wb.configs.SetSelected("more_items")
	b.wait()
	b.wb.largeMode.SetSelected(largeNeighbourhood)
	b.wait()
	return b
}

// Esc cancels an exploration wherever the keyboard focus is: on a button,
// a drop-down, a check box or a text field of the workbench (a tapped
// check box or drop-down keeps the focus, and a click on a button leaves
// it where it was), not only when nothing has it.
func TestEscapeCancelsWhateverHasTheFocus(t *testing.T) {
	b := newBench(t)
	b.wb.AutoExplore = false
	b.open("testdata/counter.star")
	for _, f := range []fyne.Focusable{b.wb.configs, widgets.NewCheck("c", nil), newEntry(b.wb), b.wb.explore} {
		b.wb.Explore()
		pump(30*time.Second, func() bool {
			var n int
			fmt.Sscanf(strings.ReplaceAll(b.wb.counts.Text, ",", ""), "%d states", &n) // 1,234 states
			return n > 1000
		})
		f.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
		b.wait()
		if x := b.wb.Last(); x == nil || x.Stats.StoppedBy != "cancelled" {
			t.Fatalf("Esc on a focused %T did not cancel: %+v", f, x)
		}
	}
}

// An exploration whose configuration sets no max_states stops at the
// workbench's bound, says so, and Continue explores again with four times
// the bound.
func TestStateBoundAndContinue(t *testing.T) {
	b := newBench(t)
	b.wb.AutoExplore = false
	b.wb.bound = 500
	b.open("testdata/counter.star")
	b.wb.Explore()
	b.wait()
	x := b.wb.Last()
	if x == nil || x.Stats.StoppedBy != "max states" || len(x.States) != 500 || !b.wb.continueB.Visible() ||
		!strings.Contains(b.wb.Status(), "Continue explores again up to 2000") {
		t.Fatalf("%d states, stopped by %q, continue shown %v, status %q", len(x.States), x.Stats.StoppedBy, b.wb.continueB.Visible(), b.wb.Status())
	}
	test.Tap(b.wb.continueB)
	b.wait()
	if x := b.wb.Last(); len(x.States) != 2000 {
		t.Errorf("after Continue: %d states", len(x.States))
	}
}

// Ctrl+S saves what is on screen or nothing: with a field showing an
// error, the file keeps what it had (not the field's last valid value),
// the project stays unsaved and the user is told which field; a negative
// weight is such an error.
func TestSaveWhatYouSee(t *testing.T) {
	b := newBench(t)
	path := copyProject(t, "chat")
	b.open(path)
	b.wait()
	before, _ := os.ReadFile(path)
	f := b.wb.Editor().Field("filters.0")
	f.Entry.SetText("pending(s) < 2 ")
	f.Entry.SetText("nofunc(s) < 2")
	if !f.Error.Visible() {
		t.Fatal("no error shown for an undefined name")
	}
	if err := b.wb.Save(); err == nil || !strings.Contains(err.Error(), "filters.0") {
		t.Errorf("saved with a field in error: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) || !b.wb.Dirty() {
		t.Errorf("the file changed (or the project was marked saved):\n%s", after)
	}
	f.Entry.SetText("pending(s) < 2")
	if err := b.wb.Save(); err != nil || b.wb.Dirty() {
		t.Fatalf("a valid field was not saved: %v", err)
	}
	if after, _ := os.ReadFile(path); !strings.Contains(string(after), `"pending(s) < 2"`) {
		t.Errorf("saved:\n%s", after)
	}
	w := b.wb.Editor().Field("actions.Post.weight")
	if w == nil {
		t.Fatal("no weight field")
	}
	w.Entry.SetText("-1")
	if !w.Error.Visible() || !strings.Contains(w.Error.Text, "0 or more") {
		t.Errorf("weight -1: %q", w.Error.Text)
	}
}

// A selection belongs to a state, not to a number: after another
// configuration is explored, the same state is selected under its new id
// (or nothing is), and a state is never shown selected in a graph where
// its number is another state's.
func TestSelectionKeepsItsState(t *testing.T) {
	b := newBench(t)
	b.open(copyProject(t, "chat"))
	b.wait()
	key := func(id string) string {
		full, x := b.wb.s.full, b.wb.Last()
		i := b.wb.s.doc.StateIndex(id)
		if i < 0 {
			return ""
		}
		return x.StateKey(int(full.States[i].Model))
	}
	for _, id := range []string{"S8", "S3"} {
		b.wb.SelectState(id)
		want := key(id)
		b.wb.configs.SetSelected("hi_bye")
		b.wait()
		got := b.wb.s.center
		if got != "" && key(got) != want {
			t.Errorf("%s of figure1 became %s of hi_bye, another state", id, got)
		}
		if sel := b.wb.graph.Selected(); got != "" && (sel < 0 || b.wb.graph.Doc().States[sel].ID != got) {
			t.Errorf("the graph shows %d selected, the workbench %s", sel, got)
		}
		if got == "" && b.wb.graph.Selected() >= 0 {
			t.Errorf("%s: a state is selected in a graph without it", id)
		}
		b.wb.configs.SetSelected("figure1")
		b.wait()
	}
}

// A named domain can be removed; the configuration menu offers only what
// can succeed (no "make the default" for the default, and Delete says at
// once why a configuration others extend cannot go).
func TestDomainsRemovableAndMenusHonest(t *testing.T) {
	b := newBench(t)
	b.open(copyProject(t, "chat"))
	b.wait()
	ed := b.wb.Editor()
	if ed.Field("domains.Message") == nil {
		t.Fatal("figure1 has no Message domain field")
	}
	// The row of the Message domain: its label and its Remove button.
	var remove *widgets.Button
	for _, o := range test.LaidOutObjects(ed.Content()) {
		c, ok := o.(*fyne.Container)
		if !ok {
			continue
		}
		var label bool
		var bt *widgets.Button
		for _, x := range c.Objects {
			if l, ok := x.(*widget.Label); ok && l.Text == "Message =" {
				label = true
			}
			if e, ok := x.(*widgets.Button); ok && e.Text == "Remove" {
				bt = e
			}
		}
		if label && bt != nil {
			remove = bt
		}
	}
	if remove == nil {
		t.Fatal("no Remove button on the Message domain's row")
	}
	test.Tap(remove)
	if _, ok := b.wb.s.project.Configs["figure1"].Domains["Message"]; ok || ed.Field("domains.Message") != nil || !b.wb.Dirty() {
		t.Errorf("the domain was not removed (field %v, dirty %v)", ed.Field("domains.Message"), b.wb.Dirty())
	}
	if why := b.wb.s.project.CannotDelete("figure1"); why != `configurations hi_bye, figure1_scenario extend "figure1"` {
		t.Errorf("figure1, which hi_bye extends: %q", why)
	}
}

// The window's size and its dividers are kept from one session to the
// next; the graph gets most of the width by default, and a long value in
// the details never widens the window.
func TestLayoutPersistsAndGraphFirst(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("test")
	w.Resize(fyne.NewSize(1400, 860))
	wb := NewWorkbench(w, a, nil)
	if wb.splits[1].Offset < 0.75 || wb.splits[0].Offset > 0.3 {
		t.Errorf("default dividers %v %v", wb.splits[0].Offset, wb.splits[1].Offset)
	}
	wb.splits[0].Offset, wb.splits[1].Offset = 0.2, 0.6
	w.Resize(fyne.NewSize(1200, 800))
	wb.saveLayout()
	w2 := a.NewWindow("again")
	wb2 := NewWorkbench(w2, a, nil)
	if wb2.splits[0].Offset != 0.2 || wb2.splits[1].Offset != 0.6 || w2.Canvas().Size().Width < 1200 || w2.Canvas().Size().Height != 800 {
		t.Errorf("restored %v %v %v", wb2.splits[0].Offset, wb2.splits[1].Offset, w2.Canvas().Size())
	}
	before := w2.Content().MinSize().Width
	box := wb2.s.details.Content().(*container.Scroll).Content.(*fyne.Container) // the inspector's rows
	box.Objects = append(box.Objects, widget.NewLabel(strings.Repeat("a-very-long-value ", 200)))
	box.Refresh()
	if after := w2.Content().MinSize().Width; after > before+1 {
		t.Errorf("a long value widened the window's minimum from %v to %v", before, after)
	}
}
