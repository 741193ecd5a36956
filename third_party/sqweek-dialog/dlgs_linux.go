package dialog

// Modex: GTK is opened with dlopen when the first dialog runs, not linked.
// Upstream linked GTK 3 (pkg-config gtk+-3.0) and called XInitThreads and
// gtk_init_check in this package's init: every process that imported the
// package loaded GTK and its ~60 libraries at start (about 9 MB resident
// and 8 ms), and with DISPLAY set connected to the display and initialised
// GTK (4 ms and 3 MB more), whether it showed a dialog or not. The
// build no longer needs GTK's headers, and a machine without GTK 3 runs the
// program: its dialogs return an error (file dialogs) or panic (message
// dialogs, as upstream's did when GTK could not start), and the caller can
// fall back to its own. See MODEX.md.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <locale.h>
#include <stdlib.h>

// GTK 3's types and constants as its ABI has them: objects are pointers,
// gboolean and the enums are ints.
enum {
	GTK_RESPONSE_ACCEPT = -3,
	GTK_RESPONSE_CANCEL = -6,
	GTK_RESPONSE_YES = -8,
	GTK_MESSAGE_INFO = 0,
	GTK_MESSAGE_QUESTION = 2,
	GTK_MESSAGE_ERROR = 3,
	GTK_BUTTONS_OK = 1,
	GTK_BUTTONS_YES_NO = 4,
	GTK_FILE_CHOOSER_ACTION_OPEN = 0,
	GTK_FILE_CHOOSER_ACTION_SAVE = 1,
	GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER = 2,
};

static struct {
	int (*init_check)(int *, char ***);
	void *(*message_dialog_new)(void *, int, int, int, const char *, ...);
	void *(*file_chooser_dialog_new)(const char *, void *, int, const char *, ...);
	void (*window_set_title)(void *, const char *);
	int (*dialog_run)(void *);
	void (*widget_destroy)(void *);
	int (*events_pending)(void);
	int (*main_iteration)(void);
	void *(*file_filter_new)(void);
	void (*file_filter_set_name)(void *, const char *);
	void (*file_filter_add_pattern)(void *, const char *);
	void (*file_chooser_add_filter)(void *, void *);
	int (*file_chooser_set_current_folder)(void *, const char *);
	void (*file_chooser_set_current_name)(void *, const char *);
	void (*file_chooser_set_do_overwrite_confirmation)(void *, int);
	char *(*file_chooser_get_filename)(void *);
	void (*g_free)(void *);
	void (*disable_setlocale)(void);
} gtk;

// dlg_load opens GTK 3 and finds its functions: NULL when done, else what
// failed (dlerror's message, or the missing function's name).
static const char *dlg_load(void) {
	void *h = dlopen("libgtk-3.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		return e ? e : "dlopen libgtk-3.so.0 failed";
	}
#define SYM(field, name) \
	if (!(*(void **)&gtk.field = dlsym(h, name))) return name;
	SYM(init_check, "gtk_init_check")
	SYM(message_dialog_new, "gtk_message_dialog_new")
	SYM(file_chooser_dialog_new, "gtk_file_chooser_dialog_new")
	SYM(window_set_title, "gtk_window_set_title")
	SYM(dialog_run, "gtk_dialog_run")
	SYM(widget_destroy, "gtk_widget_destroy")
	SYM(events_pending, "gtk_events_pending")
	SYM(main_iteration, "gtk_main_iteration")
	SYM(file_filter_new, "gtk_file_filter_new")
	SYM(file_filter_set_name, "gtk_file_filter_set_name")
	SYM(file_filter_add_pattern, "gtk_file_filter_add_pattern")
	SYM(file_chooser_add_filter, "gtk_file_chooser_add_filter")
	SYM(file_chooser_set_current_folder, "gtk_file_chooser_set_current_folder")
	SYM(file_chooser_set_current_name, "gtk_file_chooser_set_current_name")
	SYM(file_chooser_set_do_overwrite_confirmation, "gtk_file_chooser_set_do_overwrite_confirmation")
	SYM(file_chooser_get_filename, "gtk_file_chooser_get_filename")
	SYM(g_free, "g_free")
	SYM(disable_setlocale, "gtk_disable_setlocale")
#undef SYM
	return NULL;
}

// dlg_init starts GTK, leaving the C locale as it is (see SetLocale).
static int dlg_init(void) {
	gtk.disable_setlocale();
	return gtk.init_check(NULL, NULL);
}

static void dlg_close(void *dlg) {
	gtk.widget_destroy(dlg);
	// Destroying is not enough to take the dialog off the screen: GTK's main
	// loop must process further events, and none runs here.
	while (gtk.events_pending()) gtk.main_iteration();
}

static int dlg_message(int type, int buttons, const char *title, const char *msg) {
	void *dlg = gtk.message_dialog_new(NULL, 0, type, buttons, "%s", msg);
	gtk.window_set_title(dlg, title);
	int r = gtk.dialog_run(dlg);
	dlg_close(dlg);
	return r;
}

static void *dlg_file_new(const char *title, int action, const char *accept) {
	void *dlg = gtk.file_chooser_dialog_new(title, NULL, action, "Cancel", GTK_RESPONSE_CANCEL,
		accept, GTK_RESPONSE_ACCEPT, NULL);
	gtk.file_chooser_set_do_overwrite_confirmation(dlg, 1);
	return dlg;
}

// dlg_filter adds a filter named name; patterns holds n glob patterns.
static void dlg_filter(void *dlg, const char *name, char **patterns, int n) {
	void *f = gtk.file_filter_new();
	gtk.file_filter_set_name(f, name);
	for (int i = 0; i < n; i++) gtk.file_filter_add_pattern(f, patterns[i]);
	gtk.file_chooser_add_filter(dlg, f);
}

static void dlg_start(void *dlg, const char *dir, const char *file) {
	if (dir) gtk.file_chooser_set_current_folder(dlg, dir);
	if (file) gtk.file_chooser_set_current_name(dlg, file);
}

// dlg_file_run runs the dialog and closes it: the chosen file name
// (malloc'd, for the caller to free) or NULL.
static char *dlg_file_run(void *dlg) {
	char *name = NULL;
	if (gtk.dialog_run(dlg) == GTK_RESPONSE_ACCEPT) {
		char *g = gtk.file_chooser_get_filename(dlg);
		if (g) {
			size_t n = 0;
			while (g[n]) n++;
			name = malloc(n + 1);
			if (name) for (size_t i = 0; i <= n; i++) name[i] = g[i];
			gtk.g_free(g);
		}
	}
	dlg_close(dlg);
	return name;
}
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"unsafe"
)

// Modex: GTK runs on one OS thread of its own, started by the first dialog;
// dialogs are handed to it one at a time, so a second dialog asked for while
// one is open appears when that one closes (upstream ran GTK on whichever
// thread called).
var (
	gtkOnce  sync.Once
	gtkErr   error
	gtkCalls = make(chan func())
)

// SetLocale sets the C library's locale from the environment, as
// gtk_init would (setlocale(LC_ALL, "")), for GTK's dialogs to speak the
// user's language. Call it at start, before other threads run C code:
// setlocale is not thread-safe, and GTK, started later on a thread of its
// own, leaves the locale as it is (Modex).
func SetLocale() {
	empty := C.CString("")
	defer C.free(unsafe.Pointer(empty))
	C.setlocale(C.LC_ALL, empty)
}

// onGTK runs f on GTK's thread, starting it (and loading GTK) the first
// time, and waits for it: an error when GTK could not be loaded or started.
// A panic in f is raised again in the caller.
func onGTK(f func()) error {
	gtkOnce.Do(func() {
		ready := make(chan struct{})
		go gtkThread(ready)
		<-ready
	})
	if gtkErr != nil {
		return gtkErr
	}
	done := make(chan any, 1)
	gtkCalls <- func() {
		defer func() { done <- recover() }()
		f()
	}
	if p := <-done; p != nil {
		panic(p)
	}
	return nil
}

// gtkThread loads and starts GTK on a thread it keeps, then runs the calls
// handed to it.
func gtkThread(ready chan<- struct{}) {
	runtime.LockOSThread() // never unlocked: GTK stays on this thread
	if msg := C.dlg_load(); msg != nil {
		gtkErr = errors.New("dialog: GTK 3 is not available: " + C.GoString(msg))
	} else if C.dlg_init() == 0 {
		gtkErr = errors.New("dialog: gtk initialisation failed; presumably no X server is available")
	}
	close(ready)
	if gtkErr != nil {
		return
	}
	for f := range gtkCalls {
		f()
	}
}

// Loaded reports whether GTK has been loaded into the process (Modex).
func Loaded() bool {
	name := C.CString("libgtk-3.so.0")
	defer C.free(unsafe.Pointer(name))
	h := C.dlopen(name, C.RTLD_NOW|C.RTLD_NOLOAD)
	if h == nil {
		return false
	}
	C.dlclose(h)
	return true
}

func runMsgDlg(defaultTitle string, msgtype, buttons C.int, b *MsgBuilder) C.int {
	var r C.int
	err := onGTK(func() {
		cmsg := C.CString(b.Msg)
		defer C.free(unsafe.Pointer(cmsg))
		ctitle := C.CString(firstOf(b.Dlg.Title, defaultTitle))
		defer C.free(unsafe.Pointer(ctitle))
		r = C.dlg_message(msgtype, buttons, ctitle, cmsg)
	})
	if err != nil {
		panic(err.Error())
	}
	return r
}

func (b *MsgBuilder) yesNo() bool {
	return runMsgDlg("Confirm?", C.GTK_MESSAGE_QUESTION, C.GTK_BUTTONS_YES_NO, b) == C.GTK_RESPONSE_YES
}

func (b *MsgBuilder) info() {
	runMsgDlg("Information", C.GTK_MESSAGE_INFO, C.GTK_BUTTONS_OK, b)
}

func (b *MsgBuilder) error() {
	runMsgDlg("Error", C.GTK_MESSAGE_ERROR, C.GTK_BUTTONS_OK, b)
}

func (b *FileBuilder) load() (string, error) {
	return chooseFile("Open File", "Open", C.GTK_FILE_CHOOSER_ACTION_OPEN, b)
}

func (b *FileBuilder) save() (string, error) {
	return chooseFile("Save File", "Save", C.GTK_FILE_CHOOSER_ACTION_SAVE, b)
}

// cstrings holds C copies of Go strings until free.
type cstrings []unsafe.Pointer

func (c *cstrings) str(s string) *C.char {
	p := C.CString(s)
	*c = append(*c, unsafe.Pointer(p))
	return p
}

func (c cstrings) free() {
	for _, p := range c {
		C.free(p)
	}
}

func chooseFile(title string, buttonText string, action C.int, b *FileBuilder) (string, error) {
	var name *C.char
	err := onGTK(func() {
		var cs cstrings
		defer cs.free()
		// Modex: the builder's title when set (upstream showed title always).
		dlg := C.dlg_file_new(cs.str(firstOf(b.Dlg.Title, title)), action, cs.str(buttonText))
		for _, filt := range b.Filters {
			// The patterns' array is C memory: cgo passes no Go pointer to
			// Go pointers.
			n := len(filt.Extensions)
			arr := (**C.char)(C.malloc(C.size_t(max(n, 1)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
			cs = append(cs, unsafe.Pointer(arr))
			pats := unsafe.Slice(arr, max(n, 1))
			for i, ext := range filt.Extensions {
				pats[i] = cs.str("*." + ext)
			}
			C.dlg_filter(dlg, cs.str(filt.Desc), arr, C.int(n))
		}
		var dir, file *C.char
		if b.StartDir != "" {
			dir = cs.str(b.StartDir)
		}
		if b.StartFile != "" {
			file = cs.str(b.StartFile)
		}
		C.dlg_start(dlg, dir, file)
		name = C.dlg_file_run(dlg)
	})
	if err != nil {
		return "", err
	}
	if name == nil {
		return "", ErrCancelled
	}
	defer C.free(unsafe.Pointer(name))
	return C.GoString(name), nil
}

func (b *DirectoryBuilder) browse() (string, error) {
	return chooseFile("Open Folder", "Open", C.GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, &FileBuilder{Dlg: b.Dlg})
}
