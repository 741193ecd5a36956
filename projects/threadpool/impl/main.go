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

// record writes one event in the format of seed 004's Figure 5.4: the
// thread's numeric id, the time, then the event's own attributes.
func (p *pool) record(name string, thread uint32, attrs string) {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	p.recordLocked(name, thread, attrs)
}

func (p *pool) recordLocked(name string, thread uint32, attrs string) {
	fmt.Fprintf(p.trace, "  <%s thread=\"%d\" time=\"%d\" %s/>\n", name, thread, time.Since(p.start).Microseconds(), attrs)
}

// taskInfo is the info attribute of a task's enqueue and dequeue events: what
// the task is and where it was created, as the ASK traces say it.
func taskInfo(task int) string {
	return fmt.Sprintf(`info="task %d - balancer (pool.go 134)"`, task)
}

// threadID gives workers ten-digit ids like the pthread ids of the ASK traces.
func threadID(i int) uint32 { return 3079972528 - uint32(i)*8392704 }

func (p *pool) jitter(max int) {
	p.rmu.Lock()
	d := time.Duration(p.rng.IntN(max)) * time.Microsecond
	p.rmu.Unlock()
	time.Sleep(d)
}

// worker runs tasks until the pool closes.
func (p *pool) worker(id uint32, wg *sync.WaitGroup) {
	defer wg.Done()
	p.record("starting", id, `info=""`)
	p.record("waiting", id, `info=""`)
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
			p.recordLocked("dequeue", id, taskInfo(task))
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
			p.record("dequeue", id, taskInfo(task))
			p.mu.Unlock()
		}
		p.jitter(500) // run the task
		p.mu.Lock()
		p.done++
		p.record("waiting", id, `info=""`)
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
	balancer := threadID(0)
	p.record("createThreads", balancer, fmt.Sprintf(`number="%d"`, *workers))
	var wg sync.WaitGroup
	for i := 1; i <= *workers; i++ {
		wg.Add(1)
		go p.worker(threadID(i), &wg)
	}
	for i := 1; i <= *tasks; i++ {
		p.jitter(400)
		p.mu.Lock()
		p.queue = append(p.queue, i)
		p.record("enqueue", balancer, taskInfo(i))
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
	p.record("killThreads", balancer, fmt.Sprintf(`number="%d"`, *workers))
	fmt.Fprintln(p.trace, "</trace>")
	p.trace.Flush()
}
