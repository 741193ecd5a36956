// Package ui is the Modex workbench: the window, its menus and panels, the
// session of an open project, and the wiring of the views. It talks to the
// engine through its public API only and never blocks the UI goroutine:
// model loading, exploration, layout and drawing run in goroutines and hand
// their results back with fyne.Do, newest first, superseded ones dropped.
//
// The views live in packages of their own, which never import ui: the
// central area (area), the graph and its inspector (graphview), the
// configuration editor (configeditor), the model's source (modelview), the
// test dashboard with its campaigns (testview), the offline suites, replay
// and histories (offline), the sequence chart (seqchart), the timeline
// (timeline), the coverage chart (chart), and the small widgets they share
// (widgets). A project's test dashboard and Offline tab see the workbench
// through a host interface of their package (testview.Host, offline.Host),
// which the session's viewHost implements; they claim the central area
// through it, with area.Opener's Open.
package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/assets"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/engine/privdir"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/configeditor"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/modelview"
	"github.com/modex/modex/ui/widgets"
)

// DrawLimit is the largest graph (in states) drawn whole at all; larger
// graphs show their overview or the neighbourhood of the selected state.
const DrawLimit = 300

// OverviewAbove is the largest graph drawn whole unless the user asks for
// the whole graph (large graphs: whole graph): past about a hundred states a
// whole graph at Fit is a knot of arcs, and the overview reads better.
const OverviewAbove = 100

// Workbench is the main window's content: a project, its model, a
// configuration, and the explored graph.
type Workbench struct {
	win     fyne.Window
	app     fyne.App
	dialogs Dialogs
	// composeErr: the configuration's scenarios do not compile (the
	// model was loaded without them)
	composeErr error

	mu     sync.Mutex // guards the fields below, shared with goroutines
	s      *session   // the open project and everything that belongs to it
	cancel context.CancelFunc
	gen    int // exploration generation: results of older ones are dropped
	seq    int // presentation sequence: older drawings are dropped
	radius int
	// layoutCancel cancels the layout in progress.
	layoutCancel context.CancelFunc
	built        builtGraphs // the graph and document of the exploration shown
	exploreT     *time.Timer

	// widgets
	title   *widget.Label
	configs *widgets.Select
	explore *widgets.Button
	stop    *widgets.Button
	// bound is the workbench's own bound on the states of an exploration
	// whose configuration sets none (a preference; DefaultStateBound);
	// continueB raises it and explores again, shown when it was reached.
	bound     int
	usedBound int
	continueB *widgets.Button
	// splits are the panels' dividers (tabs | graph, graph | details),
	// kept in the preferences with the window's size.
	splits [2]*container.Split
	// body holds the panels as shown: a hidden panel's split is left out
	// (View ▸ Side Panel, Details Panel); center is the graph's panel.
	body                   *fyne.Container
	center                 fyne.CanvasObject
	hidePanel, hideDetails bool
	// progress moves one step per progress report (about 10 a second): an
	// infinite bar would repaint the window at 60 frames a second, which
	// under software rendering takes the CPU the exploration needs.
	progress *widget.ProgressBar
	counts   *widget.Label
	status   *widgets.OneLine
	note     *widget.Label
	graph    *graphview.View
	model_   *modelview.View
	edHolder *fyne.Container
	tabs     *container.AppTabs
	radiusS  *widgets.Select
	minimal  *widget.Check   // show the minimised graph
	byMenu   *widgets.Button // the overviews the model suggests
	pathMode *widgets.Select // path views of the selected state
	// pathShown says the graph shows a path view (see showPath).
	pathShown bool
	// largeMode and overviewBy choose how graphs too large to draw whole
	// are shown: an overview (by an expression) or a neighbourhood.
	largeMode  *widgets.Select
	overviewBy *widgets.Entry
	// holders of the session's panels, swapped when a project opens: the
	// side panel's tabs, the central area's result views, the inspector
	holders
	// views is the central area: the graph and the result views.
	views *area.Area
	// testTab is the Test tab: while it is selected the graph is the
	// test's (when a test ran), elsewhere the exploration's.
	testTab *container.TabItem

	// AutoExplore explores the selected configuration as soon as a project
	// opens or a configuration is edited.
	AutoExplore bool

	onShown func()
	// onStatus, when set, is told each status that say sets (tests)
	onStatus  func(string)
	maxUIWork atomic.Int64 // longest UI-goroutine callback, nanoseconds
	// consent remembers the adapter commands the user allowed (nil: never
	// ask); confirm asks (a dialog; tests replace it).
	consent *Consent
	confirm func(title, msg string, ok func())
	// recentChanged refreshes File ▸ Open Recent (set with the menus).
	recentChanged func()
	// modal is what Esc and Enter do while a dialog is up (showKeyed).
	modal *modalKeys
	// shortcuts are the Ctrl (Cmd) shortcuts by key, also run from
	// focused text fields.
	shortcuts map[fyne.KeyName]func()
}

// NewWorkbench builds the workbench inside a window. a may be nil (no
// recent-projects list); dialogs nil uses Fyne's own.
func NewWorkbench(win fyne.Window, a fyne.App, dialogs Dialogs) *Workbench {
	if dialogs == nil {
		dialogs = FyneDialogs{Win: win}
	}
	wb := &Workbench{win: win, app: a, dialogs: dialogs, radius: 2, consent: DefaultConsent()}
	wb.confirm = wb.confirmDialog
	wb.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	wb.configs = widgets.NewSelect(nil, nil)
	wb.configs.OnChanged = wb.selectConfig
	cfgMenu := widgets.NewButton("…", wb.configMenu)
	wb.explore = widgets.NewButton("Explore", wb.Explore)
	wb.explore.Importance = widget.HighImportance
	wb.stop = widgets.NewButton("Cancel", wb.Cancel)
	wb.stop.Disable()
	wb.bound = DefaultStateBound
	if a != nil {
		wb.bound = a.Preferences().IntWithFallback(stateBoundKey, DefaultStateBound)
	}
	wb.continueB = widgets.NewButton("Continue", wb.continueExploring)
	wb.continueB.Hide()
	wb.progress = widget.NewProgressBar()
	wb.progress.TextFormatter = func() string { return "" } // a bar, not a button-like label: the counts say what runs
	wb.progress.Hide()
	wb.counts = widget.NewLabel("")
	wb.status = widgets.NewOneLine("Open a project to begin.")
	wb.status.Truncation = fyne.TextTruncateEllipsis
	wb.note = widget.NewLabel("")
	wb.note.Wrapping = fyne.TextWrapWord
	wb.note.Hide()
	wb.graph = graphview.New()
	wb.graph.OnCompare = func(a, b int) {
		if v := wb.graph.Doc(); v != nil {
			wb.s.details.ShowDiff(&v.States[a], &v.States[b])
			// Both states marked: the selected one, the compared one.
			wb.graph.SetMarks(map[int]color.NRGBA{b: graphview.MarkCompared})
			wb.status.SetText(fmt.Sprintf("Comparing %s with %s (Ctrl+click another state to compare it instead)", v.States[a].ID, v.States[b].ID))
		}
	}
	wb.graph.OnSelect = func(i int) {
		if wb.openClass(wb.graph.Doc().States[i].ID) {
			return
		}
		if wb.pathShown {
			if id := wb.graph.Doc().States[i].ID; !strings.HasPrefix(id, graph.FoldPrefix) {
				wb.remember(id)
				wb.selectDocState(id)
				wb.graph.Select(i)
			}
			return
		}
		if wb.s.test != nil && wb.graph.Doc() != nil && wb.s.test.Showing(wb.graph.Doc()) {
			wb.s.test.Jump(wb.graph.Doc().States[i].ID)
			return
		}
		wb.SelectState(wb.graph.Doc().States[i].ID) // recentres a graph shown in part
	}
	wb.model_ = modelview.New(wb.Reload)
	wb.edHolder = container.NewStack()
	wb.holders = newHolders()
	wb.testTab = container.NewTabItem("Test", wb.testHolder)
	wb.tabs = container.NewAppTabs(
		container.NewTabItem("Configuration", wb.edHolder),
		container.NewTabItem("Model", wb.model_.Content()),
		wb.testTab,
		container.NewTabItem("Offline", wb.offlineHolder),
	)
	wb.tabs.OnSelected = wb.tabChanged
	wb.setSession(newSession(wb, nil))
	wb.radiusS = widgets.NewSelect([]string{"1", "2", "3", "4", "6"}, func(v string) {
		n, _ := strconv.Atoi(v)
		wb.mu.Lock()
		changed := n != wb.radius
		wb.radius = n
		wb.mu.Unlock()
		if changed {
			wb.redraw()
		}
	})
	wb.radiusS.SetSelected("2")

	// The bar's counts take the room left and are cut (the status line
	// and the details say the same at length): the window's width never
	// depends on a figure.
	wb.counts.Truncation = fyne.TextTruncateEllipsis
	bar := container.NewBorder(nil, nil, container.NewHBox(wb.title, widget.NewLabel("Configuration:"), wb.configs, cfgMenu, wb.explore, wb.stop, wb.continueB),
		nil, container.NewBorder(nil, nil, wb.progress, nil, wb.counts))
	wb.buildPanels()
	wb.restoreLayout()
	win.SetContent(container.NewBorder(bar, wb.status, nil, nil, wb.body))
	win.SetIcon(assets.Icon)
	wb.installMenus()
	win.SetCloseIntercept(wb.closeRequested)
	return wb
}

// OnShown sets a function called (on the UI goroutine) whenever a finished
// exploration is fully on screen.
func (wb *Workbench) OnShown(f func()) { wb.onShown = f }

// MaxUIWork is the longest time one of the workbench's callbacks kept the
// UI goroutine busy.
func (wb *Workbench) MaxUIWork() time.Duration { return time.Duration(wb.maxUIWork.Load()) }

// do runs f on the UI goroutine and records how long it took.
func (wb *Workbench) do(f func()) {
	widgets.Post(func() {
		start := time.Now()
		f()
		d := int64(time.Since(start))
		for {
			old := wb.maxUIWork.Load()
			if d <= old || wb.maxUIWork.CompareAndSwap(old, d) {
				break
			}
		}
	})
}

// Graph returns the graph view.
func (wb *Workbench) Graph() *graphview.View { return wb.graph }

// Editor returns the configuration editor, or nil.
func (wb *Workbench) Editor() *configeditor.Editor { return wb.s.editor }

// Status returns the status line text.
func (wb *Workbench) Status() string { return wb.status.Text }

// Last returns the last finished exploration, or nil.
func (wb *Workbench) Last() *explore.Exploration {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	return wb.s.last
}

// Dirty reports unsaved changes.
func (wb *Workbench) Dirty() bool { return wb.s.dirty }

func (wb *Workbench) setDirty(d bool) {
	wb.s.dirty = d
	name := "Modex"
	if wb.s.project != nil {
		name = "Modex — " + wb.s.project.Name
		if d {
			name += " *"
		}
	}
	wb.win.SetTitle(name)
}

// Open loads a project (or bare .star model) and shows it.
func (wb *Workbench) Open(path string) error {
	p, err := projects.Load(path)
	if err != nil {
		return err
	}
	wb.setProject(p)
	wb.addRecent(path)
	return nil
}

// setProject shows p in a new session: the previous project's runs are
// stopped and its panels, selection, results and Find are dropped whole.
func (wb *Workbench) setProject(p *projects.Project) {
	wb.Cancel()
	wb.mu.Lock()
	wb.gen++ // the closed project's exploration results are dropped
	wb.mu.Unlock()
	wb.finishRun()
	if wb.exploreT != nil {
		wb.exploreT.Stop()
	}
	wb.s.test.Stop()
	wb.s.offline.Close()
	wb.built.drop(nil) // the closed project's graph and document
	wb.setSession(newSession(wb, p))
	wb.graph.Reset("")
	wb.note.Hide() // the closed project's overview note (a model that does not load shows none)
	if wb.views != nil {
		wb.views.Show(wb.graphPane(), false) // the new project's graph, not the closed one's empty result views
	}
	wb.title.SetText(p.Name)
	wb.loadModel()
	wb.s.test.ProjectChanged()
	wb.configs.Options = p.ConfigNames()
	wb.s.config = ""
	wb.configs.SetSelected(p.Default) // builds the editor and explores
	if wb.configs.Selected == "" {
		wb.selectConfig(p.Default)
	}
	wb.setDirty(false)
	// The closed project's graph may have taken gigabytes, and a small
	// project allocates too little for a collection to come soon: give
	// the memory back now (off the UI goroutine).
	time.AfterFunc(time.Second, debug.FreeOSMemory)
}

// loadModel (re)loads the project's model and shows its source.
func (wb *Workbench) loadModel() {
	p := wb.s.project
	src, _ := os.ReadFile(p.ModelPath())
	m, err := p.LoadModelFor(wb.s.config) // the configuration's constants and scenarios
	var se *projects.ScenarioError
	if wb.composeErr = nil; errors.As(err, &se) {
		// a configuration's error: the model stays, to fix it in the editor
		m, err, wb.composeErr = se.Model, nil, se
	}
	wb.mu.Lock()
	wb.s.model = m
	wb.mu.Unlock()
	if err != nil {
		line := 0
		var pe *model.PosError
		if errors.As(err, &pe) && filepath.Clean(pe.Pos.File) == filepath.Clean(p.ModelPath()) {
			line = pe.Pos.Line
		}
		wb.model_.SetSource(string(src), line, err.Error())
		wb.status.SetText("Model error: " + strings.SplitN(err.Error(), "\n", 2)[0])
		wb.graph.SetMessage("The model does not load:\n\n" + err.Error())
		wb.explore.Disable()
		wb.tabs.SelectIndex(1)
		return
	}
	wb.model_.SetSource(string(src), 0, "")
	wb.explore.Enable()
}

// Reload reads the model file again (project edits are kept).
func (wb *Workbench) Reload() {
	if wb.s.project == nil {
		return
	}
	wb.loadModel()
	wb.rebuildEditor()
	if wb.s.model != nil && wb.AutoExplore {
		wb.Explore()
	}
}

func (wb *Workbench) selectConfig(name string) {
	if wb.s.project == nil || name == "" || name == wb.s.config {
		return
	}
	wb.graph.FitNext() // another configuration's graph starts fitted
	// A configuration with other constants needs the model loaded with them.
	reload := wb.s.model == nil || hasConstants(wb.s.project, wb.s.config) || hasConstants(wb.s.project, name)
	wb.s.config = name
	if reload {
		wb.loadModel()
	}
	wb.rebuildEditor()
	if wb.s.model != nil {
		wb.status.SetText(fmt.Sprintf("%s: %s", filepath.Base(wb.s.project.ModelPath()), wb.s.project.Description))
		if wb.AutoExplore {
			wb.Explore()
		}
	}
}

func (wb *Workbench) rebuildEditor() {
	if wb.s.model == nil || wb.s.config == "" {
		wb.s.editor = nil
		wb.edHolder.Objects = []fyne.CanvasObject{widget.NewLabel("Fix the model to edit its configurations.")}
		wb.edHolder.Refresh()
		return
	}
	wb.dropFocus()
	wb.s.editor = configeditor.New(wb.s.project, wb.s.model, wb.s.config, wb.configEdited)
	wb.s.editor.Shortcut = wb.runShortcut
	wb.s.editor.OnInvalid = func() { // half-typed: no re-exploration of an earlier prefix
		if wb.exploreT != nil {
			wb.exploreT.Stop()
		}
	}
	wb.edHolder.Objects = []fyne.CanvasObject{wb.s.editor.Content()}
	wb.edHolder.Refresh()
}

// configEdited runs after every valid edit in the configuration editor.
func (wb *Workbench) configEdited() {
	wb.setDirty(true)
	if !wb.AutoExplore {
		return
	}
	if wb.exploreT != nil {
		wb.exploreT.Stop()
	}
	wb.exploreT = time.AfterFunc(300*time.Millisecond, func() { wb.do(wb.Explore) })
}

// dropFocus takes the keyboard focus from whatever has it, before the
// widgets it may be among are replaced: a removed widget kept the focus
// and took the next keys (see widgets.OnCanvas).
func (wb *Workbench) dropFocus() {
	if c := wb.win.Canvas(); c != nil && c.Focused() != nil {
		c.Unfocus()
	}
}

// Explore starts exploring the selected configuration in the background.
func (wb *Workbench) Explore() {
	failed := wb.recompose()
	wb.mu.Lock()
	p, m := wb.s.project, wb.s.model
	if p == nil || m == nil || failed {
		wb.mu.Unlock()
		return
	}
	if wb.cancel != nil {
		wb.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	wb.cancel = cancel
	wb.gen++
	gen := wb.gen
	wb.mu.Unlock()
	cfg, err := p.Build(m, wb.configs.Selected)
	if err != nil {
		cancel()
		wb.status.SetText("Configuration error: " + err.Error())
		return
	}
	if wb.checked(ctx, gen, p, m, cfg) {
		return
	}
	// An unbounded model must not fill the machine: the workbench stops
	// at its own bound when the configuration sets none.
	wb.usedBound = 0
	if cfg.MaxStates == 0 && wb.bound > 0 {
		cfg.MaxStates, wb.usedBound = wb.bound, wb.bound
	}
	wb.continueB.Hide()
	// Leave a core for the UI goroutine and the renderer, and repaint the
	// progress four times a second: every repaint is a whole frame, which
	// under software rendering competes with the exploration for the CPU.
	cfg.Workers = max(1, runtime.NumCPU()-1)
	cfg.ProgressEvery = 250 * time.Millisecond
	var pending atomic.Pointer[explore.Exploration]
	wake := make(chan struct{}, 1)
	cfg.Progress = func(pr explore.Progress) {
		wb.do(func() {
			if !wb.current(gen) {
				return
			}
			if !pr.Done {
				v := wb.progress.Value + 0.1
				if v > 1.001 {
					v = 0
				}
				wb.progress.SetValue(v)
			}
			// The last report is the final count: the counter agrees with
			// the result while the graph is still being laid out.
			wb.counts.SetText(pr.String())
		})
	}
	cfg.Snapshot = func(x *explore.Exploration) {
		if len(x.States) <= graphview.LiveLimit {
			pending.Store(x)
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
	wb.startRun()
	wb.status.SetText(exploringText(wb.configs.Selected, cfg))
	done := make(chan struct{})
	pumpDone := make(chan struct{})
	go func() { // live pump: draws the newest partial graph, one at a time
		defer close(pumpDone)
		for {
			select {
			case <-done:
				return
			case <-wake:
				if x := pending.Swap(nil); x != nil && wb.current(gen) {
					wb.present(gen, wb.nextSeq(), x, false)
				}
			}
		}
	}()
	go func() {
		x, err := explore.Explore(ctx, m, cfg)
		close(done)
		<-pumpDone
		wb.explored(gen, x, err)
	}()
}

func (wb *Workbench) nextSeq() int {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	wb.seq++
	return wb.seq
}

func (wb *Workbench) current(gen int) bool {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	return gen == wb.gen
}

func (wb *Workbench) startRun() {
	wb.explore.Disable()
	wb.stop.Enable()
	wb.progress.SetValue(0)
	wb.progress.Show()
}

func (wb *Workbench) finishRun() {
	wb.explore.Enable()
	wb.stop.Disable()
	wb.progress.Hide()
}

func (wb *Workbench) shown() {
	if wb.onShown != nil {
		wb.onShown()
	}
}

// Cancel stops a running exploration; what was found is kept. The
// buttons and the status say so at once: the graph of what was found may
// take longer to draw.
func (wb *Workbench) Cancel() {
	wb.mu.Lock()
	running := wb.cancel != nil && wb.explore.Disabled()
	if wb.cancel != nil {
		wb.cancel()
	}
	wb.mu.Unlock()
	if running {
		wb.finishRun()
		wb.status.SetText("Cancelled: " + wb.counts.Text + "; drawing what was found…")
	}
}

// DefaultStateBound is the workbench's bound on the states of an
// exploration whose configuration sets no max_states.
const DefaultStateBound = 1_000_000

// stateBoundKey is the preference that holds the workbench's state bound.
const stateBoundKey = "stateBound"

// continueExploring raises the workbench's state bound fourfold, for this
// session, and explores again.
func (wb *Workbench) continueExploring() {
	wb.bound = max(wb.bound, wb.usedBound) * 4
	wb.Explore()
}

// askStateBound asks for the workbench's state bound and keeps it in the
// preferences.
func (wb *Workbench) askStateBound() {
	e := widget.NewEntry()
	e.SetText(strconv.Itoa(wb.bound))
	e.Validator = func(s string) error {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err != nil || n < 1 {
			return fmt.Errorf("a whole number of states, at least 1")
		}
		return nil
	}
	dialog.ShowForm("State bound", "OK", "Cancel", []*widget.FormItem{widget.NewFormItem("Stop explorations at", e)}, func(ok bool) {
		n, err := strconv.Atoi(strings.TrimSpace(e.Text))
		if !ok || err != nil || n < 1 {
			return
		}
		wb.bound = n
		if wb.app != nil {
			wb.app.Preferences().SetInt(stateBoundKey, n)
		}
	}, wb.win)
}

// configMenu offers adding, copying, renaming and deleting configurations.
func (wb *Workbench) configMenu() {
	if wb.s.project == nil {
		return
	}
	ask := func(title, initial string, f func(string) error) {
		e := widget.NewEntry()
		e.SetText(initial)
		dialog.ShowForm(title, "OK", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", e)}, func(ok bool) {
			if !ok {
				return
			}
			if err := f(strings.TrimSpace(e.Text)); err != nil {
				dialog.ShowError(err, wb.win)
			}
		}, wb.win)
	}
	p := wb.s.project
	cur := wb.configs.Selected
	after := func(name string) {
		wb.configs.Options = p.ConfigNames()
		wb.s.config = ""
		wb.configs.SetSelected(name)
		wb.configs.Refresh()
		wb.setDirty(true)
	}
	menu := fyne.NewMenu("",
		fyne.NewMenuItem("New configuration…", func() {
			ask("New configuration", "", func(n string) error {
				if err := p.AddConfig(n, ""); err != nil {
					return err
				}
				after(n)
				return nil
			})
		}),
		fyne.NewMenuItem("Copy "+cur+"…", func() {
			ask("Copy "+cur, cur+"_copy", func(n string) error {
				if err := p.AddConfig(n, cur); err != nil {
					return err
				}
				after(n)
				return nil
			})
		}),
		fyne.NewMenuItem("Rename "+cur+"…", func() {
			ask("Rename "+cur, cur, func(n string) error {
				if err := p.RenameConfig(cur, n); err != nil {
					return err
				}
				after(n)
				return nil
			})
		}),
		fyne.NewMenuItem("Delete "+cur, func() {
			// Asked only when it can succeed: what stops it is said first.
			if why := p.CannotDelete(cur); why != "" {
				dialog.ShowInformation("Delete configuration", "Cannot delete "+cur+": "+why, wb.win)
				return
			}
			dialog.ShowConfirm("Delete configuration", "Delete "+cur+"?", func(ok bool) {
				if !ok {
					return
				}
				if err := p.DeleteConfig(cur); err != nil {
					dialog.ShowError(err, wb.win)
					return
				}
				after(p.Default)
			}, wb.win)
		}),
	)
	if p.Default != cur { // offered only when it changes something
		menu.Items = append(menu.Items, fyne.NewMenuItem("Make "+cur+" the default", func() {
			p.Default = cur
			wb.setDirty(true)
		}))
	}
	widget.ShowPopUpMenuAtRelativePosition(menu, wb.win.Canvas(), fyne.NewPos(0, 0), wb.configs)
}

// Run opens the workbench on a project; path "" opens the bundled chat
// sample (copied to the user's cache folder).
//
// With MODEX_UI_STATS=FILE in the environment, the workbench monitors the UI
// goroutine and writes, after every exploration shown, a JSON line with the
// longest UI-goroutine stall and callback so far (scripts/ui-stalls.sh).
func Run(a fyne.App, path, config, trace string, dialogs func(fyne.Window) Dialogs) error {
	if path == "" {
		dir, err := privdir.CacheDir()
		if err != nil {
			return err
		}
		if path, err = projects.ExtractSample("chat", filepath.Join(dir, "modex", "samples")); err != nil {
			return err
		}
	}
	a.SetIcon(assets.Icon)
	w := a.NewWindow("Modex")
	w.Resize(fyne.NewSize(1400, 860)) // or as the user left it (restoreLayout); fitted to the screen once shown
	var d Dialogs
	if dialogs != nil {
		d = dialogs(w)
	}
	wb := NewWorkbench(w, a, d)
	wb.AutoExplore = true
	if v, err := strconv.ParseFloat(os.Getenv("MODEX_DRAW_SCALE"), 64); err == nil && v > 0 {
		drawScaleBase = v
	}
	a.Lifecycle().SetOnStarted(wb.fitScreen)
	if stats := os.Getenv("MODEX_UI_STATS"); stats != "" {
		// Measure once the event loop runs: explore again then, so that the
		// exploration, layout and drawing all happen under the monitor.
		var mon *StallMonitor
		runs := 0
		a.Lifecycle().SetOnStarted(func() {
			wb.fitScreen()
			mon = StartStallMonitor(5 * time.Millisecond)
			time.AfterFunc(500*time.Millisecond, func() { widgets.Post(func() { mon.Reset(); wb.Explore() }) })
		})
		defer func() {
			if mon != nil {
				mon.Stop()
			}
		}()
		wb.OnShown(func() {
			runs++
			if mon == nil || runs < 2 {
				return
			}
			wb.mu.Lock()
			n := 0
			if wb.s.last != nil {
				n = len(wb.s.last.States)
			}
			wb.mu.Unlock()
			line := fmt.Sprintf(`{"config":%q,"states":%d,"max_stall_ms":%.1f,"max_callback_ms":%.1f,"heartbeats":%d}`+"\n",
				wb.configs.Selected, n, float64(mon.Worst().Microseconds())/1000, float64(wb.MaxUIWork().Microseconds())/1000, mon.Beats())
			if f, err := os.OpenFile(stats, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				f.WriteString(line)
				f.Close()
			}
		})
	}
	if err := wb.Open(path); err != nil {
		return err
	}
	if config != "" {
		if _, ok := wb.s.project.Configs[config]; !ok {
			return fmt.Errorf("%s has no configuration %q", path, config)
		}
		wb.configs.SetSelected(config)
	}
	if trace != "" {
		if err := wb.s.offline.LoadTrace(trace); err != nil {
			return err
		}
		wb.tabs.SelectIndex(3)
		wb.s.offline.Replay()
	}
	w.ShowAndRun()
	return nil
}
