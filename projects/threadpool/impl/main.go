// Command impl is the thread-pool sample's implementation: a worker pool
// with a balancer, instrumented to record an XML event trace (seed 004,
// Figure 5.4).
//
//	impl --workers N --tasks M [--seed S] [--buggy] --out trace.xml
//
// The balancer creates N workers; the environment enqueues M tasks at random
// moments; idle workers take tasks from a shared queue and run them; when all
// tasks are done the balancer kills the workers. Every event is recorded at
// the moment it takes effect, under the trace lock, so the trace is a valid
// serialisation. --buggy takes tasks from the queue without the lock: two
// workers can take the same task.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"
)

type pool struct {
	mu     sync.Mutex // the queue lock
	queue  []int
	cond   *sync.Cond
	done   int
	closed bool
	buggy  bool

	tmu   sync.Mutex // the trace lock
	trace *bufio.Writer
	start time.Time
	rng   *rand.Rand
	rmu   sync.Mutex
}

func (p *pool) record(name string, attrs string) {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	fmt.Fprintf(p.trace, "  <%s %s time=\"%d\"/>\n", name, attrs, time.Since(p.start).Microseconds())
}

func (p *pool) jitter(max int) {
	p.rmu.Lock()
	d := time.Duration(p.rng.IntN(max)) * time.Microsecond
	p.rmu.Unlock()
	time.Sleep(d)
}

// worker runs tasks until the pool closes.
func (p *pool) worker(id string, wg *sync.WaitGroup) {
	defer wg.Done()
	p.record("starting", fmt.Sprintf(`thread=%q info=""`, id))
	p.record("waiting", fmt.Sprintf(`thread=%q info=""`, id))
	for {
		var task int
		if p.buggy {
			// The bug: peek and take without holding the lock across both.
			p.mu.Lock()
			for len(p.queue) == 0 && !p.closed {
				p.cond.Wait()
			}
			if p.closed && len(p.queue) == 0 {
				p.mu.Unlock()
				return
			}
			task = p.queue[0]
			p.mu.Unlock()
			p.jitter(300) // the race window
			p.mu.Lock()
			p.tmu.Lock()
			if len(p.queue) > 0 && p.queue[0] == task {
				p.queue = p.queue[1:]
			}
			fmt.Fprintf(p.trace, "  <dequeue thread=%q task=\"%d\" time=\"%d\"/>\n", id, task, time.Since(p.start).Microseconds())
			p.tmu.Unlock()
			p.mu.Unlock()
		} else {
			p.mu.Lock()
			for len(p.queue) == 0 && !p.closed {
				p.cond.Wait()
			}
			if p.closed && len(p.queue) == 0 {
				p.mu.Unlock()
				return
			}
			task = p.queue[0]
			p.queue = p.queue[1:]
			p.record("dequeue", fmt.Sprintf(`thread=%q task="%d"`, id, task))
			p.mu.Unlock()
		}
		p.jitter(500) // run the task
		p.mu.Lock()
		p.done++
		p.record("waiting", fmt.Sprintf(`thread=%q info=""`, id))
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

func main() {
	workers := flag.Int("workers", 2, "worker threads the balancer creates")
	tasks := flag.Int("tasks", 5, "tasks the environment enqueues")
	seed := flag.Uint64("seed", 1, "seed of the random delays")
	buggy := flag.Bool("buggy", false, "take tasks without the queue lock")
	out := flag.String("out", "", "trace file (default: standard output)")
	flag.Parse()
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	p := &pool{buggy: *buggy, trace: bufio.NewWriter(w), start: time.Now(), rng: rand.New(rand.NewPCG(*seed, 7))}
	p.cond = sync.NewCond(&p.mu)
	fmt.Fprintln(p.trace, "<trace>")
	p.record("createThreads", fmt.Sprintf(`thread="balancer" number="%d"`, *workers))
	var wg sync.WaitGroup
	for i := 1; i <= *workers; i++ {
		wg.Add(1)
		go p.worker(fmt.Sprintf("w%d", i), &wg)
	}
	for i := 1; i <= *tasks; i++ {
		p.jitter(400)
		p.mu.Lock()
		p.queue = append(p.queue, i)
		p.record("enqueue", fmt.Sprintf(`thread="env" task="%d" info="task %d"`, i, i))
		p.cond.Broadcast()
		p.mu.Unlock()
	}
	// The balancer: when every task is done, kill the workers.
	p.mu.Lock()
	for p.done < *tasks {
		p.cond.Wait()
	}
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	wg.Wait()
	p.record("killThreads", fmt.Sprintf(`thread="balancer" number="%d"`, *workers))
	fmt.Fprintln(p.trace, "</trace>")
	p.trace.Flush()
}
