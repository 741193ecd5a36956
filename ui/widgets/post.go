package widgets

import (
	"time"

	"fyne.io/fyne/v2"
)

// Post runs f on the UI goroutine. It is fyne.Do; the workbench's tests
// replace it with a queue that the test goroutine drains, because Fyne's test
// driver runs fyne.Do callbacks on the calling goroutine, so background work
// would touch widgets concurrently with the test.
var Post = fyne.Do

// TooltipLinger is how long a tooltip stays while the pointer does not
// move.
var TooltipLinger = 8 * time.Second
