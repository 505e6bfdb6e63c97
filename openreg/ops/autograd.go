package ops

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
)

// A minimal reverse-mode autograd, enough for MLP training and for the profiler's backward
// records: forward ops that need a gradient make a node named like PyTorch's (MmBackward0, …)
// with the op's sequence number; Backward runs the nodes in PyTorch's engine order and records
// them as the engine does.

type gradModeKey struct{}

// NoGrad returns a context in which ops record no autograd nodes (torch.no_grad()).
func NoGrad(ctx context.Context) context.Context {
	return context.WithValue(ctx, gradModeKey{}, false)
}

// GradEnabled reports whether ops on ctx record autograd nodes (true unless NoGrad).
func GradEnabled(ctx context.Context) bool {
	if ctx == nil {
		return true
	}
	v, ok := ctx.Value(gradModeKey{}).(bool)
	return !ok || v
}

// seqs holds each logical thread's sequence-number counter (at::sequence_number is thread-local).
var seqs sync.Map // *orprof.Thread → *atomic.Int64

func nextSeq(t *orprof.Thread) int64 {
	c, ok := seqs.Load(t)
	if !ok {
		c, _ = seqs.LoadOrStore(t, new(atomic.Int64))
	}
	return c.(*atomic.Int64).Add(1) - 1
}

// applyFn computes the gradients of a node's inputs from the gradient of its output. It returns
// one tensor per input (nil where n.next[i] is nil or no gradient flows); the engine owns them.
type applyFn func(ctx context.Context, n *node, g *Tensor) ([]*Tensor, error)

// node is an autograd Node.
type node struct {
	name      string
	seq       int64 // math.MaxInt64 for AccumulateGrad: it runs as soon as it is ready
	hasSeq    bool
	fwdThread int64
	next      []*node // the nodes of the inputs' gradients; nil for inputs that need none
	apply     applyFn
	leaf      *Tensor   // AccumulateGrad's variable
	saved     []*Tensor // references the gradient formula keeps (SavedVariable); released with the graph
	released  bool
}

// gradOp is what a forward op decided about autograd before it began.
type gradOp struct {
	on     bool
	seq    int64
	thread int64
}

// gradFor decides whether an op with these inputs records a node, and takes its sequence number.
func gradFor(ctx context.Context, inputs ...*Tensor) gradOp {
	if !GradEnabled(ctx) {
		return gradOp{}
	}
	for _, t := range inputs {
		if t != nil && t.requiresGrad {
			th := orprof.ThreadFrom(ctx)
			return gradOp{on: true, seq: nextSeq(th), thread: th.ID()}
		}
	}
	return gradOp{}
}

// beginGradOp records an op, with its sequence number when it makes a node.
func beginGradOp(ctx context.Context, name string, g gradOp, args ...*Tensor) orprof.Range {
	if !orprof.Active() {
		return orprof.Range{}
	}
	return orprof.Begin(ctx, orprof.Op{Name: name, Inputs: shapesOf(args...), SequenceNr: g.seq, HasSequence: g.on})
}

// edge is the node that receives t's gradient, nil when t needs none.
func edge(t *Tensor) *node {
	if t == nil || !t.requiresGrad {
		return nil
	}
	if t.gradFn != nil {
		return t.gradFn
	}
	if t.accum == nil {
		leaf := t
		t.accum = &node{name: "torch::autograd::AccumulateGrad", seq: math.MaxInt64, leaf: leaf, apply: accumulateGrad}
	}
	return t.accum
}

// attach makes out the result of a node over inputs; saved are the node's own references
// (made with share) to the tensors its formula reads, released with the graph.
func (g gradOp) attach(_ context.Context, out *Tensor, name string, inputs, saved []*Tensor, fn applyFn) {
	n := &node{name: name, seq: g.seq, hasSeq: true, fwdThread: g.thread, apply: fn, saved: saved,
		next: make([]*node, len(inputs))}
	for i, t := range inputs {
		n.next[i] = edge(t)
	}
	out.gradFn = n
	out.requiresGrad = true
}

// accumulateGrad is AccumulateGrad: the first gradient is stored detached, later ones are added.
func accumulateGrad(ctx context.Context, n *node, g *Tensor) ([]*Tensor, error) {
	v := n.leaf
	if v.grad == nil {
		d, err := Detach(ctx, g)
		if err != nil {
			return nil, err
		}
		v.grad = d
		return nil, nil
	}
	old := v.grad
	if old.IsContiguous() && old.offset == 0 && old.refs.Load() == 1 && sameShape(old.shape, g.shape) {
		return nil, AddInPlace(ctx, old, g, 1)
	}
	sum, err := Add(ctx, old, g)
	if err != nil {
		return nil, err
	}
	v.grad = sum
	old.Release(ctx)
	return nil, nil
}

// Detach returns a tensor sharing t's data without autograd history (aten::detach, detach).
func Detach(ctx context.Context, t *Tensor) (*Tensor, error) {
	if err := checkTensors("detach", t); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::detach", t)
	defer r.End()
	r2 := beginOp(ctx, "detach", t)
	defer r2.End()
	return share(t), nil
}

// readyQueue orders ready nodes as PyTorch's engine does on one device: highest sequence number
// first, AccumulateGrad before everything.
type readyQueue []*node

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return q[i].seq > q[j].seq }
func (q readyQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)        { *q = append(*q, x.(*node)) }
func (q *readyQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}

// ErrGraphReleased is returned by a second Backward through the same graph.
var ErrGraphReleased = errors.New("openreg: trying to backward through the graph a second time")

// Backward computes the gradient of the one-element tensor t with respect to every leaf that
// requires grad, accumulating into their Grad (loss.backward()). It runs on the calling
// goroutine and ctx's logical thread, recording for every node
// "autograd::engine::evaluate_function: <Node>" around "<Node>" (scope backward function, the
// forward op's sequence number and thread) around the gradient's ops; the initial gradient comes
// from aten::ones_like. It queues device work and does not wait for it. The graph is released
// afterwards: a second Backward fails with ErrGraphReleased.
func (t *Tensor) Backward(ctx context.Context) error {
	if err := checkTensors("backward", t); err != nil {
		return err
	}
	if !t.requiresGrad {
		return errors.New("openreg: backward: element 0 of tensors does not require grad and does not have a grad_fn")
	}
	if t.Numel() != 1 {
		return errors.New("openreg: backward: grad can be implicitly created only for scalar outputs")
	}
	root := edge(t)
	if root.released {
		return ErrGraphReleased
	}
	ctx = NoGrad(ctx)
	g, err := OnesLike(ctx, t)
	if err != nil {
		return err
	}

	deps := map[*node]int{}
	seen := map[*node]bool{root: true}
	order := []*node{root}
	for i := 0; i < len(order); i++ {
		for _, c := range order[i].next {
			if c == nil {
				continue
			}
			if c.released {
				return ErrGraphReleased
			}
			deps[c]++
			if !seen[c] {
				seen[c] = true
				order = append(order, c)
			}
		}
	}
	grads := map[*node]*Tensor{root: g}
	q := &readyQueue{root}
	var firstErr error
	for q.Len() > 0 {
		n := heap.Pop(q).(*node)
		gin := grads[n]
		delete(grads, n)
		var outs []*Tensor
		if gin != nil && firstErr == nil {
			outs, err = evaluate(ctx, n, gin)
			if err != nil {
				firstErr = err
			}
			gin.Release(ctx)
		}
		for i, c := range n.next {
			if c == nil {
				continue
			}
			if i < len(outs) && outs[i] != nil {
				if prev := grads[c]; prev != nil {
					sum, err := Add(ctx, prev, outs[i])
					if err != nil && firstErr == nil {
						firstErr = err
					}
					prev.Release(ctx)
					outs[i].Release(ctx)
					grads[c] = sum
				} else {
					grads[c] = outs[i]
				}
			}
			if deps[c]--; deps[c] == 0 {
				heap.Push(q, c)
			}
		}
	}
	for _, n := range order {
		if n.leaf == nil {
			n.released = true
			n.apply = nil
			for _, t := range n.saved {
				t.Release(ctx)
			}
			n.saved = nil
		}
	}
	return firstErr
}

// evaluate runs one node under the engine's records.
func evaluate(ctx context.Context, n *node, g *Tensor) ([]*Tensor, error) {
	r := orprof.Begin(ctx, orprof.Op{Name: "autograd::engine::evaluate_function: " + n.name})
	defer r.End()
	r2 := orprof.Begin(ctx, orprof.Op{Name: n.name, Scope: events.ScopeBackwardFunction, Inputs: shapesOf(g),
		SequenceNr: n.seq, HasSequence: n.hasSeq, FwdThread: n.fwdThread})
	defer r2.End()
	return n.apply(ctx, n, g)
}

// needs reports whether node n wants the gradient of its input i.
func (n *node) needs(i int) bool { return i < len(n.next) && n.next[i] != nil }
