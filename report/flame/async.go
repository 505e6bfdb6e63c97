package flame

import "github.com/orprof/orprof/events"

// asyncBatch is how many events Async's add hands the building goroutine at a time.
const asyncBatch = 512

// batch is a run of events, their kernels copied out of the walk's memory: event i's are
// kernels[at[i]:at[i+1]].
type batch struct {
	evs     []events.TreeEvent
	at      []int32
	kernels []events.Kernel
}

// Async returns an add function that takes the events of a walk as Add does, in the same
// order, and builds the tree from them on a goroutine of its own, and a wait function that
// returns once every event added is in the tree (call it once, then Tree). The walk's side
// only copies each event and its kernels into a batch: the Averager's walk is the end of a
// read, on one core, while the other is often idle by then. add is for one goroutine, as
// Add is.
func (b *Builder) Async() (add func(*events.TreeEvent), wait func()) {
	work := make(chan *batch, 4)
	free := make(chan *batch, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for bt := range work {
			for i := range bt.evs {
				e := &bt.evs[i]
				e.Kernels = bt.kernels[bt.at[i]:bt.at[i+1]:bt.at[i+1]]
				b.Add(e)
			}
			select {
			case free <- bt:
			default:
			}
		}
	}()
	var cur *batch
	add = func(e *events.TreeEvent) {
		if cur == nil {
			select {
			case cur = <-free:
				cur.evs, cur.at, cur.kernels = cur.evs[:0], cur.at[:1], cur.kernels[:0]
			default:
				cur = &batch{evs: make([]events.TreeEvent, 0, asyncBatch), at: make([]int32, 1, asyncBatch+1)}
			}
		}
		cur.evs = append(cur.evs, *e)
		cur.kernels = append(cur.kernels, e.Kernels...)
		cur.at = append(cur.at, int32(len(cur.kernels)))
		if len(cur.evs) == asyncBatch {
			work <- cur
			cur = nil
		}
	}
	wait = func() {
		if cur != nil && len(cur.evs) > 0 {
			work <- cur
		}
		cur = nil
		close(work)
		<-done
	}
	return add, wait
}
