package offline

import (
	"io"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
)

// Host is what the Offline tab needs of the workbench that holds it: the
// open project and its exploration, the graph view and the inspector it
// marks, the status line, the workbench's window and file dialogs, and its
// ways of running things. Each project's tab has a Host of its own; its
// methods are called on the UI goroutine.
type Host interface {
	// Open shows the suite or replay view in the central area.
	area.Opener
	// Project is the open project (its [replay] is edited in place).
	Project() *projects.Project
	// Model is the project's model as loaded for the selected
	// configuration (nil when it does not load).
	Model() *model.StarModel
	// Config is the selected configuration's name.
	Config() string
	// Active reports whether the tab belongs to the open project: a
	// closed project's must not touch the shared graph, inspector or
	// status line.
	Active() bool
	// Graph is the graph view, where suites and replays are marked.
	Graph() *graphview.View
	// Details is the inspector beside the graph.
	Details() *graphview.Inspector
	// SelectState selects an explored state in the graph and the
	// inspector.
	SelectState(id string)
	// SetStatus says text on the status line.
	SetStatus(text string)
	// Explored is the exploration shown last, its graph and its
	// configuration (nil when there is none).
	Explored() (*explore.Exploration, *explore.Graph, string)
	// DrawnIndex gives the index, in the graph on screen, of what stands
	// for an exploration's state (itself, or its overview's class); -1
	// when neither is drawn.
	DrawnIndex() func(id string) int
	// AdapterCommand is the adapter command of the Test tab, "" for the
	// project's own: suites run with it.
	AdapterCommand() string
	// Consented runs start once the user allowed the adapter command to
	// run (command "" stands for the project's own).
	Consented(command string, start func())
	// Edited says the project was changed (the replay's event mapping).
	Edited()
	// Do runs f on the UI goroutine.
	Do(f func())
	// App is the application (the timeline's window), nil in some tests.
	App() fyne.App
	// Window is the workbench's window, the dialogs' parent.
	Window() fyne.Window
	// ShowKeyed shows a dialog whose Enter and Esc do ok and cancel.
	ShowKeyed(d dialog.Dialog, ok, cancel func())
	// ProjectDir is the folder where the file dialogs start.
	ProjectDir() string
	// OpenFile asks for a file to open, starting in dir.
	OpenFile(title, dir string, exts []string, done func(path string))
	// SaveFile asks for a file to write, starting at the suggested path.
	SaveFile(title, suggested string, exts []string, done func(path string))
	// SaveSVG saves a picture (a sequence chart, a timeline) where the
	// user says.
	SaveSVG(what, picture, name string, write func(io.Writer) error)
}
