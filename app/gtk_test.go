//go:build linux && !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sqweek/dialog"
)

func init() { loadedProbes["gtk"] = dialog.Loaded }

// TestDialogHelper is run by TestNativeDialogWithoutDisplayFails in a child
// process without a display: it opens a native file dialog and prints what
// came of it.
func TestDialogHelper(t *testing.T) {
	if os.Getenv("MODEX_DIALOG_HELPER") == "" {
		t.Skip("run by TestNativeDialogWithoutDisplayFails")
	}
	before := dialog.Loaded()
	path, err := dialog.File().Title("Open").Filter("Modex files", "toml").Load()
	fmt.Printf("loaded before: %v\nloaded after: %v\npath: %q\ncancelled: %v\nerror: %v\n",
		before, dialog.Loaded(), path, errors.Is(err, dialog.ErrCancelled), err)
}

// TestNativeDialogWithoutDisplayFails: GTK is loaded by the first native
// dialog (dialog.Loaded, which TestCommandsLoadOnlyWhatTheyUse relies on,
// says so before and after), every function the dialogs use is found in it
// (a missing one is "not available"), and where GTK cannot start (no
// display here) the dialog returns an error, not ErrCancelled and not a
// panic, in good time: the workbench then shows Fyne's dialog instead
// (nativeDialogs).
func TestNativeDialogWithoutDisplayFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDialogHelper$", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "MODEX_DIALOG_HELPER=1", "GSETTINGS_BACKEND=memory")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(string(out), "GTK 3 is not available: libgtk-3.so.0: cannot open") {
		t.Skipf("GTK 3 is not installed here (make deps installs it):\n%s", out)
	}
	for _, want := range []string{"loaded before: false\n", "loaded after: true\n", "path: \"\"\n", "cancelled: false\n",
		"error: dialog: gtk initialisation failed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}
