// Package modelview shows a project's model source in the side panel, its
// keywords highlighted and the line of an error marked.
package modelview

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/widgets"
)

// Syntax colours of the model view.
var (
	colKeyword = color.NRGBA{R: 200, G: 120, B: 255, A: 255}
	colString  = color.NRGBA{R: 140, G: 210, B: 120, A: 255}
	colComment = color.NRGBA{R: 130, G: 140, B: 150, A: 255}
	colNumber  = color.NRGBA{R: 240, G: 170, B: 90, A: 255}
	colBuiltin = color.NRGBA{R: 90, G: 180, B: 250, A: 255}
	colErrorBG = color.NRGBA{R: 150, G: 20, B: 20, A: 255}
)

var starKeywords = map[string]bool{
	"def": true, "return": true, "if": true, "elif": true, "else": true, "for": true, "in": true,
	"not": true, "and": true, "or": true, "while": true, "load": true, "lambda": true, "pass": true,
	"break": true, "continue": true, "None": true, "True": true, "False": true,
}

var starBuiltins = map[string]bool{
	"require": true, "new": true, "choose": true, "fail": true, "len": true, "list": true, "dict": true,
	"set": true, "sorted": true, "range": true, "min": true, "max": true, "sum": true, "all": true,
	"any": true, "tuple": true, "str": true, "int": true, "enumerate": true, "zip": true, "print": true,
	"actions": true, "observables": true, "internal": true, "domains": true, "cleanup": true,
}

// View shows a model's source with Starlark highlighting and marks an
// error line.
type View struct {
	grid    *widget.TextGrid
	message *widget.Label
	reload  *widgets.Button
	content fyne.CanvasObject
}

// New builds the view; onReload is called by its Reload button.
func New(onReload func()) *View {
	v := &View{grid: widget.NewTextGrid()}
	v.grid.ShowLineNumbers = true
	v.message = widget.NewLabel("")
	v.message.Wrapping = fyne.TextWrapWord
	v.message.Hide()
	v.reload = widgets.NewButton("Reload", onReload)
	v.content = container.NewBorder(container.NewVBox(v.reload, v.message), nil, nil, nil, container.NewScroll(v.grid))
	return v
}

// Content is the view's widget tree.
func (v *View) Content() fyne.CanvasObject { return v.content }

// SetSource shows source text; errLine (1-based, 0 for none) is marked
// with msg.
func (v *View) SetSource(src string, errLine int, msg string) {
	v.grid.SetText(src)
	for i, line := range strings.Split(src, "\n") {
		highlightLine(v.grid, i, line)
		if i+1 == errLine {
			for c := range v.grid.Rows[i].Cells {
				v.grid.SetStyle(i, c, &widget.CustomTextGridStyle{FGColor: color.White, BGColor: colErrorBG})
			}
		}
	}
	if msg != "" {
		v.message.SetText(msg)
		v.message.Show()
	} else {
		v.message.Hide()
	}
	v.grid.Refresh()
}

// Text returns the source shown.
func (v *View) Text() string { return v.grid.Text() }

// highlightLine colours one line of Starlark.
func highlightLine(g *widget.TextGrid, row int, line string) {
	set := func(from, to int, c color.Color) {
		for i := from; i < to && i < len(g.Rows[row].Cells); i++ {
			g.SetStyle(row, i, &widget.CustomTextGridStyle{FGColor: c})
		}
	}
	runes := []rune(line)
	for i := 0; i < len(runes); {
		r := runes[i]
		switch {
		case r == '#':
			set(i, len(runes), colComment)
			return
		case r == '"' || r == '\'':
			j := i + 1
			for j < len(runes) && runes[j] != r {
				if runes[j] == '\\' {
					j++
				}
				j++
			}
			set(i, j+1, colString)
			i = j + 1
		case r >= '0' && r <= '9':
			j := i
			for j < len(runes) && (runes[j] >= '0' && runes[j] <= '9' || runes[j] == '.' || runes[j] == 'x') {
				j++
			}
			set(i, j, colNumber)
			i = j
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			j := i
			for j < len(runes) && (runes[j] == '_' || runes[j] >= 'a' && runes[j] <= 'z' || runes[j] >= 'A' && runes[j] <= 'Z' || runes[j] >= '0' && runes[j] <= '9') {
				j++
			}
			word := string(runes[i:j])
			if starKeywords[word] {
				set(i, j, colKeyword)
			} else if starBuiltins[word] {
				set(i, j, colBuiltin)
			}
			i = j
		default:
			i++
		}
	}
}
