package conform

// Lower bounds on time (explore.Config.Earliest): an observable action
// must not happen sooner than earliest(s) after the tester reached the
// states the model may be in.

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// earliest evaluates the configuration's earliest over the states the
// model may be in: the least of them (the most permissive); 0 without one.
func (t *tester) earliest(states []model.State) (time.Duration, error) {
	x := t.cfg.Earliest
	if x == nil || len(states) == 0 {
		return 0, nil
	}
	least := math.Inf(1)
	for _, s := range states {
		v, err := t.w.Eval(x, s)
		if err != nil {
			return 0, err
		}
		f, ok := explore.Number(v)
		if !ok || !(f >= 0) { // NaN too
			return 0, fmt.Errorf("earliest `%s` must give a number of seconds, not %s", x.Source(), model.Format(v))
		}
		least = min(least, f)
	}
	return seconds(least), nil
}

// early checks an observable action that came gap after the tester
// reached the states the model may be in: a FailEarly failure when that is
// sooner than earliest allows there, nil when it is not (or no earliest is
// configured); an error when the model's expression failed. An action
// with a negative gap was on its way before the tester's own step (the
// race the timeout extension lives with), or a trace's window reordered
// it: the bound, about the time after that step, does not judge it.
func (t *tester) early(states []model.State, gap time.Duration, ev StepRecord) (*Failure, error) {
	if t.cfg.Earliest == nil || gap < 0 {
		return nil, nil
	}
	bound, err := t.earliest(states)
	if err != nil || gap >= bound {
		return nil, err
	}
	return &Failure{Kind: FailEarly, Message: t.earlyMessage(ev.Label(), gap, bound, len(states)), States: t.describe(states), Event: &ev}, nil
}

// earlyMessage says that an observable action came gap after the states
// were reached, sooner than bound, the least of earliest over n states.
func (t *tester) earlyMessage(label string, gap, bound time.Duration, n int) string {
	where := "in this state"
	if n > 1 {
		where = fmt.Sprintf("the least over the %d states the model may be in", n)
	}
	came, least := millis(gap), millis(bound)
	if came == least { // 99.99 ms, not "100 ms; not before 100 ms"
		came = strconv.FormatFloat(float64(gap)/float64(time.Millisecond), 'f', -1, 64) + " ms"
	}
	return fmt.Sprintf("%s came after %s; the model says not before %s (earliest `%s` %s)", label, came, least, t.cfg.Earliest.Source(), where)
}

// seconds converts seconds to a duration, to the nearest nanosecond (a
// trace's 100000 µs, 100000 × 0.000001 = 0.09999999999999999 s, is the
// 100 ms of an earliest 0.1), saturating (an earliest of 1e300 seconds is
// "never", not an overflow).
func seconds(f float64) time.Duration {
	ns := math.Round(f * float64(time.Second))
	switch {
	case ns >= math.MaxInt64:
		return time.Duration(math.MaxInt64)
	case ns <= math.MinInt64:
		return time.Duration(math.MinInt64)
	}
	return time.Duration(ns)
}

// millis prints a duration for people: "25 µs", "5.2 ms", "100 ms",
// "2.5 s" (microseconds below a millisecond, tenths of a millisecond below
// a second, milliseconds above).
func millis(d time.Duration) string {
	if d == 0 {
		return "0 ms"
	}
	if d < time.Millisecond && d > -time.Millisecond {
		return strconv.FormatInt(d.Round(time.Microsecond).Microseconds(), 10) + " µs"
	}
	if d < time.Second && d > -time.Second {
		ms := math.Round(float64(d)/float64(100*time.Microsecond)) / 10
		return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
	}
	s := math.Round(float64(d)/float64(time.Millisecond)) / 1000
	return strconv.FormatFloat(s, 'f', -1, 64) + " s"
}

// arrival is when an event arrived (now for one no queue stamped); zero
// for no event.
func arrival(ev *Event) time.Time {
	switch {
	case ev == nil:
		return time.Time{}
	case ev.At.IsZero():
		return time.Now()
	}
	return ev.At
}
