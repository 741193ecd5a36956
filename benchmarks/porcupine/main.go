// Command porcupine checks the histories bundled with Modex's register and
// kv samples with github.com/anishathalye/porcupine (the reference
// linearizability checker), printing each verdict, the total time and the
// peak memory: the other side of the comparison in docs/performance.md
// (scripts/histories-vs-porcupine.sh runs both).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/anishathalye/porcupine"
)

// The etcd register, as porcupine's own test models it.
type etcdInput struct {
	op         uint8 // 0 read, 1 write, 2 cas
	arg1, arg2 int
}

type etcdOutput struct {
	ok, exists, unknown bool
	value               int
}

const none = -1000000

var etcdModel = porcupine.Model{
	Init: func() interface{} { return none },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st, inp, out := state.(int), input.(etcdInput), output.(etcdOutput)
		switch inp.op {
		case 0:
			return (!out.exists && st == none) || (out.exists && st == out.value) || out.unknown, state
		case 1:
			return true, inp.arg1
		}
		ok := (inp.arg1 == st && out.ok) || (inp.arg1 != st && !out.ok) || out.unknown
		if inp.arg1 == st {
			return ok, inp.arg2
		}
		return ok, st
	},
}

var jepsenLine = regexp.MustCompile(`jepsen\.util\s+-\s+(\d+)\s+:(\w+)\s+:(\w+)\s*(.*)$`)

// parseEtcd reads a Jepsen log: a :fail cas returned false, a timed-out
// operation (:info) completes at the end with an unknown output.
func parseEtcd(path string) []porcupine.Event {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var events []porcupine.Event
	open := map[int]int{}
	id := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := jepsenLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		proc, _ := strconv.Atoi(m[1])
		val := strings.Trim(m[4], "[]")
		nums := strings.Fields(val)
		num := func(i int) int { n, _ := strconv.Atoi(nums[i]); return n }
		switch m[2] {
		case "invoke":
			in := etcdInput{}
			switch m[3] {
			case "write":
				in = etcdInput{op: 1, arg1: num(0)}
			case "cas":
				in = etcdInput{op: 2, arg1: num(0), arg2: num(1)}
			}
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: in, Id: id})
			open[proc] = id
			id++
		case "ok", "fail":
			out := etcdOutput{}
			switch {
			case m[3] == "read" && m[2] == "fail":
				out.unknown = true
			case m[3] == "read" && val != "nil":
				out.exists, out.value = true, num(0)
			case m[3] == "cas":
				out.ok = m[2] == "ok"
			}
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: out, Id: open[proc]})
			delete(open, proc)
		}
	}
	procs := make([]int, 0, len(open))
	for p := range open {
		procs = append(procs, p)
	}
	sort.Ints(procs)
	for _, p := range procs {
		events = append(events, porcupine.Event{ClientId: p, Kind: porcupine.ReturnEvent, Value: etcdOutput{unknown: true}, Id: open[p]})
	}
	return events
}

// The key-value store, one key's value as the state, partitioned by key.
type kvInput struct {
	op         uint8 // 0 get, 1 put, 2 append
	key, value string
}

var kvModel = porcupine.Model{
	PartitionEvent: func(history []porcupine.Event) [][]porcupine.Event {
		byKey := map[string][]porcupine.Event{}
		keyOf := map[int]string{}
		var keys []string
		for _, e := range history {
			k, ok := keyOf[e.Id]
			if e.Kind == porcupine.CallEvent {
				k = e.Value.(kvInput).key
				keyOf[e.Id] = k
			}
			if _, seen := byKey[k]; !seen && !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], e)
		}
		var out [][]porcupine.Event
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() interface{} { return "" },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st, inp := state.(string), input.(kvInput)
		switch inp.op {
		case 0:
			return output.(string) == st, st
		case 1:
			return true, inp.value
		}
		return true, st + inp.value
	},
	Hash: func(state interface{}) uint64 {
		h := fnv.New64a()
		h.Write([]byte(state.(string)))
		return h.Sum64()
	},
}

var kvLine = regexp.MustCompile(`^\{:process (\d+), :type :(\w+), :f :(\w+), :key "(.*)", :value (nil|"(.*)")\}$`)

func parseKV(path string) []porcupine.Event {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var events []porcupine.Event
	open := map[int]int{}
	id := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := kvLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		proc, _ := strconv.Atoi(m[1])
		if m[2] == "invoke" {
			op := map[string]uint8{"get": 0, "put": 1, "append": 2}[m[3]]
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: kvInput{op: op, key: m[4], value: m[6]}, Id: id})
			open[proc] = id
			id++
			continue
		}
		events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: m[6], Id: open[proc]})
		delete(open, proc)
	}
	return events
}

var ednRegister = regexp.MustCompile(`^\{:process (\d+), :type :(\w+), :f :(\w+), :value (nil|\d+)\}$`)

// parseRegisterEDN reads a register history in EDN (read and write, one
// map a line, as scripts/long-history.py writes them).
func parseRegisterEDN(path string) []porcupine.Event {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var events []porcupine.Event
	open := map[int]int{}
	id := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := ednRegister.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		proc, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[4])
		if m[2] == "invoke" {
			in := etcdInput{}
			if m[3] == "write" {
				in = etcdInput{op: 1, arg1: n}
			}
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: in, Id: id})
			open[proc] = id
			id++
			continue
		}
		out := etcdOutput{}
		if m[3] == "read" && m[4] != "nil" {
			out.exists, out.value = true, n
		}
		events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: out, Id: open[proc]})
		delete(open, proc)
	}
	return events
}

func main() {
	register := flag.String("register", "../../projects/register/histories", "folder of etcd Jepsen logs")
	kv := flag.String("kv", "../../projects/kv/histories", "folder of kv EDN histories")
	long := flag.String("register-edn", "", "check only this register history in EDN (read and write)")
	flag.Parse()
	if *long != "" {
		t := time.Now()
		ok := porcupine.CheckEvents(etcdModel, parseRegisterEDN(*long))
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Printf("%s\t%v\t%.3f s; peak RSS %d MB\n", filepath.Base(*long), ok, time.Since(t).Seconds(), ru.Maxrss/1024)
		return
	}
	start := time.Now()
	total := map[porcupine.CheckResult]int{}
	logs, _ := filepath.Glob(filepath.Join(*register, "*.log"))
	for _, p := range logs {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			continue // porcupine's tests skip the empty etcd_095
		}
		t := time.Now()
		r := porcupine.CheckEvents(etcdModel, parseEtcd(p)) // no time limit, as in porcupine's tests
		res := porcupine.Ok
		if !r {
			res = porcupine.Illegal
		}
		total[res]++
		fmt.Printf("%s\t%v\t%.3f s\n", filepath.Base(p), res == porcupine.Ok, time.Since(t).Seconds())
	}
	etcd := time.Since(start)
	edns, _ := filepath.Glob(filepath.Join(*kv, "*.edn"))
	for _, p := range edns {
		t := time.Now()
		r := porcupine.CheckEvents(kvModel, parseKV(p))
		fmt.Printf("%s\t%v\t%.3f s\n", filepath.Base(p), r, time.Since(t).Seconds())
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("etcd: %d linearizable, %d not, %.3f s; all: %.3f s; peak RSS %d MB\n", total[porcupine.Ok], total[porcupine.Illegal], etcd.Seconds(), time.Since(start).Seconds(), ru.Maxrss/1024)
}
