package testview

import (
	"image/color"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/ui/widgets"
)

// logColumns are the step log's columns, with their widths.
var logColumns = []struct {
	name  string
	width float32
}{
	{"run", 44}, {"step", 48}, {"kind", 90}, {"action", 130}, {"arguments", 170}, {"output", 120}, {"states", 80},
}

// Indexes of logColumns.
const (
	colRun = iota
	colStep
	colKind
	colAction
	colArgs
	colOutput
	colStates
)

// stepCells are a step's cells in the log: its run and number (· for a
// timeout), what kind of step, the action, its arguments and output, and
// the node of the test's graph it reached (with the number of model states
// the model may be in, when more than one).
func stepCells(it conform.StepRecord, node string) []string {
	c := make([]string, len(logColumns))
	c[colRun] = strconv.Itoa(it.Run)
	c[colStep] = "·"
	if it.Step > 0 {
		c[colStep] = strconv.Itoa(it.Step)
	}
	switch {
	case it.Kind == model.Timeout:
		c[colKind] = "timeout"
	case it.Cleanup:
		c[colKind] = "cleanup"
	case it.Kind == model.Controllable:
		c[colKind] = "input"
	case it.Kind == model.Observable:
		c[colKind] = "observed"
	default:
		c[colKind] = "internal"
	}
	if it.Kind != model.Timeout {
		c[colAction] = it.Action
		if it.Kind == model.Observable {
			c[colAction] = "?" + it.Action
		}
		c[colArgs] = model.FormatArgs(it.Args)
		if it.Output != nil {
			c[colOutput] = it.Output.String()
		}
	}
	c[colStates] = node
	if n := len(it.States); n > 1 {
		c[colStates] += " (" + strconv.Itoa(n) + " states)"
	}
	return c
}

// failCells are a failure's cells: its kind in the kind column, its
// message in the action column and beyond (whole in the tooltip).
func failCells(run, step int, kind, message, node string) []string {
	c := make([]string, len(logColumns))
	c[colRun] = strconv.Itoa(run)
	c[colStep] = strconv.Itoa(step)
	c[colKind] = "✗ " + kind
	c[colAction] = message
	c[colStates] = node
	return c
}

// cell is the text of line's column col: a line with no cells (a run's
// title, a notice) shows its text in the action column.
func (l *logLine) cell(col int) string {
	if l.cells != nil {
		return l.cells[col]
	}
	if col == colAction {
		return l.text
	}
	return ""
}

// newStepLog is the step log's table: one row a line, a header naming the
// columns, and cells cut with "…" whose whole text shows when hovered.
func (tv *View) newStepLog() *widget.Table {
	t := widget.NewTableWithHeaders(
		func() (int, int) { return len(tv.lines), len(logColumns) },
		func() fyne.CanvasObject { return newLogCell(tv.tips) },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			c := o.(*logCell)
			if id.Row >= len(tv.lines) {
				c.SetText("")
				return
			}
			line := &tv.lines[id.Row]
			c.Importance = widget.MediumImportance
			if line.fail {
				c.Importance = widget.DangerImportance
			}
			c.TextStyle = fyne.TextStyle{Monospace: !line.title, Bold: line.title}
			c.SetText(line.cell(id.Col))
		})
	t.ShowHeaderColumn = false
	t.CreateHeader = func() fyne.CanvasObject {
		return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(logColumns) {
			o.(*widget.Label).SetText(logColumns[id.Col].name)
		}
	}
	for i, c := range logColumns {
		t.SetColumnWidth(i, c.width)
	}
	t.OnSelected = func(id widget.TableCellID) {
		t.UnselectAll()
		switch i := id.Row; {
		case i < 0 || i >= len(tv.lines):
		case tv.lines[i].camp > 0:
			tv.showCampaignFailure(tv.lines[i].camp - 1)
		case tv.lines[i].node != "":
			tv.Jump(tv.lines[i].node)
		}
	}
	return t
}

// logCell is a cell of the step log: its text cut with "…" to the column,
// shown whole in a tooltip (its tips layer) while the mouse is over it.
type logCell struct {
	widget.Label
	tips *tipLayer
}

func newLogCell(tips *tipLayer) *logCell {
	c := &logCell{tips: tips}
	c.Truncation = fyne.TextTruncateEllipsis
	c.ExtendBaseWidget(c)
	return c
}

// cut says whether the cell's text is wider than the cell.
func (c *logCell) cut() bool {
	w := fyne.MeasureText(c.Text, theme.TextSize(), c.TextStyle).Width
	return c.Text != "" && w+2*theme.InnerPadding() > c.Size().Width
}

// MouseIn shows the whole text of a cut cell below it.
func (c *logCell) MouseIn(*desktop.MouseEvent) {
	if c.tips != nil && c.cut() {
		c.tips.show(c.Text, c, c.TextStyle)
	}
}

// MouseMoved is part of desktop.Hoverable.
func (c *logCell) MouseMoved(*desktop.MouseEvent) {}

// MouseOut hides the tooltip.
func (c *logCell) MouseOut() {
	if c.tips != nil {
		c.tips.hide()
	}
}

// tipLayer draws tooltips above a panel: a layer of the panel's stack
// that takes no events (a click or the wheel reach what is under it, unlike
// a pop-up's overlay).
type tipLayer struct {
	layer *fyne.Container
	box   *fyne.Container
	label *widget.Label
	gen   int // tooltips shown: each goes after widgets.TooltipLinger unless another came
}

func newTipLayer() *tipLayer {
	t := &tipLayer{label: widget.NewLabel("")}
	t.label.Wrapping = fyne.TextWrapWord
	bg := canvas.NewRectangle(color.NRGBA{R: 255, G: 250, B: 215, A: 245})
	bg.StrokeColor, bg.StrokeWidth = color.NRGBA{R: 120, G: 110, B: 60, A: 255}, 1
	t.label.Importance = widget.LowImportance
	t.box = container.NewStack(bg, t.label)
	t.box.Hide()
	t.layer = container.NewWithoutLayout(t.box)
	return t
}

// show shows text in a tooltip below the object o.
func (t *tipLayer) show(text string, o fyne.CanvasObject, style fyne.TextStyle) {
	if len(text) > MaxTooltip {
		text = text[:MaxTooltip] + "…"
	}
	d := fyne.CurrentApp().Driver()
	room := t.layer.Size()
	t.label.TextStyle = style
	t.label.SetText(text)
	w := min(fyne.MeasureText(text, theme.TextSize(), style).Width+3*theme.InnerPadding(), max(room.Width*0.9, 200))
	h := t.label.MinSize().Height
	t.label.Resize(fyne.NewSize(w, h))
	h = t.label.MinSize().Height
	pos := d.AbsolutePositionForObject(o).Subtract(d.AbsolutePositionForObject(t.layer)).Add(fyne.NewPos(0, o.Size().Height))
	pos.X = max(0, min(pos.X, room.Width-w))
	if pos.Y+h > room.Height { // above the object when there is no room below
		pos.Y = max(0, pos.Y-o.Size().Height-h)
	}
	t.box.Move(pos)
	t.box.Resize(fyne.NewSize(w, h))
	t.box.Show()
	t.layer.Refresh()
	t.gen++
	gen := t.gen
	time.AfterFunc(widgets.TooltipLinger, func() { // see graphview.View.hoverGen
		widgets.Post(func() {
			if t.gen == gen {
				t.hide()
			}
		})
	})
}

func (t *tipLayer) hide() {
	if t.box.Visible() {
		t.box.Hide()
		t.layer.Refresh()
	}
}

// text is the tooltip shown now ("" for none).
func (t *tipLayer) text() string {
	if !t.box.Visible() {
		return ""
	}
	return t.label.Text
}

// MaxTooltip bounds a cell's tooltip (a failure message may be long; the
// Failure tab has it whole).
const MaxTooltip = 2000
