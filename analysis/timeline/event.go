package timeline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/trace/tracefile"
)

// Kind is what an Event is on the timeline.
type Kind uint8

const (
	// Op is a host operator or user range (cpu_op, user_annotation); only ProfilerStep#N ops
	// matter here (they delimit the steps).
	Op Kind = iota + 1
	// Launch is a host runtime or driver call (cudaLaunchKernel, runFunction, an OpenReg
	// launch, …) whose Correlation names the device work it enqueued.
	Launch
	// Device is device activity: a kernel, a copy, a fill, a device-side wait or range.
	Device
)

// Class is the category of a device event.
type Class uint8

const (
	// Unclassified asks the Analyzer to classify the event by its name (Classify).
	Unclassified Class = iota
	// Computation is a kernel that computes.
	Computation
	// Communication is a collective or point-to-point transfer kernel (NCCL, RCCL, HCCL, …).
	Communication
	// Memory is a copy or fill (memcpy, memset, DMA).
	Memory
	// Sync is the device waiting (cuda_sync's Stream Sync, Stream Wait Event, Context Sync…):
	// not work, so neither busy time nor a gap's cause.
	Sync
	// Annotation is a device-side range that spans other work (gpu_user_annotation): left out.
	Annotation
	// Other is device work of no known class (counted busy, as "other").
	Other
)

var classNames = [...]string{"unclassified", "computation", "communication", "memory", "sync", "annotation", "other"}

// Work reports whether events of class c are device work (busy time): computation,
// communication, memory and other; sync and annotation are not.
func (c Class) Work() bool {
	return c == Computation || c == Communication || c == Memory || c == Other
}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Event is what an Analyzer is handed for each event of a trace, one at a time; it keeps no
// reference to it (Name is kept for communication events, as a string shares its bytes).
type Event struct {
	Kind Kind
	Name string
	// StartNs and EndNs are the event's times on the trace's own clock in ns (Kineto's ts × 1000),
	// so that ranks of one job, which share that clock, line up.
	StartNs, EndNs int64
	// Device and Stream place a device event (Kineto's pid and tid); ignored for host events.
	Device int
	Stream int64
	// Correlation links a launch and the device work it enqueued (0: none).
	Correlation int64
	// Class of a device event; Unclassified classifies by name.
	Class Class
	// NotHTAKernel marks a device event whose category HolisticTraceAnalysis's idle breakdown
	// does not read (it reads kernels, copies and fills: not mtia_workloadd, not waits).
	NotHTAKernel bool
	// Comm identifies the collective call a communication kernel belongs to, as the trace
	// records it (nil: the trace says nothing; its instances are matched across ranks by
	// name and order). Kept by reference.
	Comm *CommID
	// hta is what htaComputation says of Name when the caller knows it already (Consumer,
	// once per name): htaUnknown, htaYes or htaNo.
	hta uint8
	// cat is the kernel category and tensor-core flag when the caller knows them (Consumer,
	// once per name; 0: worked out from Name and Class). kargs says blocks and occ hold the
	// kernel's "blocks per SM" and "est. achieved occupancy %" (−1: absent).
	cat         catTC
	kargs       bool
	blocks, occ float32
}

const (
	htaUnknown uint8 = iota
	htaYes
	htaNo
)

// CommID is what a trace says of the collective or point-to-point call a communication
// kernel belongs to (c10d's record_param_comms args): within a process group, the group's
// sequence number names one call on every rank of the group.
type CommID struct {
	// Op is the call: "allreduce", "allgather", "send", "recv", … ("": unknown).
	Op string
	// Group is the process group's name ("": unknown); Ranks the group's global ranks as the
	// trace writes them ("[0, 2]"; PyTorch cuts long lists with "...").
	Group, Ranks string
	// Seq is the group's sequence number of the call (HasSeq: the trace has one).
	Seq    int64
	HasSeq bool
	// P2P is "send" or "recv" for a point-to-point call ("" for a collective), Peer the
	// other side's global rank (−1: unknown).
	P2P  string
	Peer int64
	// CommsID is the call's "Comms Id" ("": none); Bytes its size in bytes (−1: unknown);
	// GroupSize the group's size (−1: unknown).
	CommsID   string
	Bytes     int64
	GroupSize int64
}

// Classify is the class of a device event named name, from its name alone: the kernel view's
// built-in rules (kernels.Default) decide, cuda_sync's event names (Stream Sync, Event Sync,
// Context Sync, Device Sync, Stream Wait Event) being device waits.
func Classify(name string) Class {
	k := tracefile.KindKernel
	switch name {
	case "Stream Sync", "Event Sync", "Context Sync", "Stream Wait Event", "Device Sync":
		k = tracefile.KindSync
	}
	return ClassOf(k, kernels.Default().Of(k, name))
}

// ClassOf is the class of device work of kind k in category c: a device-side range, a scope
// profiler's metrics slice or a CUDA event record is an annotation (not work); communication and memory are theirs;
// other is a wait when the work is a synchronization; every kind of computation is computation.
func ClassOf(k tracefile.Kind, c kernels.Category) Class {
	switch {
	case k == tracefile.KindDeviceAnnotation || k == tracefile.KindScopeMetrics || k == tracefile.KindEventRecord:
		return Annotation
	case c == kernels.Communication:
		return Communication
	case c == kernels.Memory:
		return Memory
	case c == kernels.Other && k == tracefile.KindSync:
		return Sync
	case c == kernels.Other:
		return Other
	}
	return Computation
}

// htaComputation reports whether HolisticTraceAnalysis's get_kernel_type would call a kernel
// named name COMPUTATION: no name excluded from it by its patterns (reference/hta.md, "Kernel
// classification"), including a name that merely contains Memcpy, Memset, dma or ends in Sync.
func htaComputation(name string) bool {
	for _, p := range []string{"nccl", "hip", "job_exe", "packet", "pe_exe", "cpum_exe_subgraph", "hccl",
		"collective_subgraph_execution", "runFunction", "Stream Wait Event"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	for _, s := range []string{"Memcpy", "Memset", "dma"} {
		if strings.Contains(name, s) {
			return false
		}
	}
	if strings.Contains(name, "Sync") {
		return false // (^.*Sync) matches any name containing Sync
	}
	if strings.HasPrefix(name, "cuda") && strings.Contains(name[4:], "LaunchKernel") {
		return false // (cuda.*LaunchKernel), anchored at the start as re.match is
	}
	return true
}

// Options are the thresholds and the selection the analyses share. The zero value is not
// valid; start from DefaultOptions.
type Options struct {
	// MicroIdleNs: a gap shorter than this between kernels launched ahead of time is a
	// "kernel wait" (HolisticTraceAnalysis's consecutive_kernel_delay, 30 µs).
	MicroIdleNs int64 `json:"micro_idle_ns"`
	// ShortKernelNs: a launch whose device work is shorter than this is a short kernel.
	ShortKernelNs int64 `json:"short_kernel_ns"`
	// QueueLength: the queue view reports the time each stream spent with at least this many
	// launches outstanding.
	QueueLength int `json:"queue_length"`
	// Steps, when not empty, restricts every analysis to the device windows of these
	// ProfilerStep numbers.
	Steps []int64 `json:"steps,omitempty"`
	// Phase, when not empty, restricts every analysis to the device events of this phase
	// and the breakdown to its windows (phase.go); a Consumer's read only.
	Phase string `json:"phase,omitempty"`
}

// DefaultOptions are the thresholds `orprof timeline` uses unless told otherwise.
func DefaultOptions() Options {
	return Options{MicroIdleNs: 30_000, ShortKernelNs: 10_000, QueueLength: 16}
}

// Check reports what is wrong with o, naming the option, or nil.
func (o Options) Check() error {
	if o.MicroIdleNs < 0 {
		return fmt.Errorf("micro-idle threshold %v: must be ≥ 0", time.Duration(o.MicroIdleNs))
	}
	if o.ShortKernelNs < 0 {
		return fmt.Errorf("short-kernel threshold %v: must be ≥ 0", time.Duration(o.ShortKernelNs))
	}
	if o.QueueLength < 1 {
		return fmt.Errorf("queue length %d: must be ≥ 1", o.QueueLength)
	}
	if o.Phase != "" && len(o.Steps) > 0 {
		return fmt.Errorf("a phase and steps: select one (a phase's windows are not steps')")
	}
	return nil
}

func (o Options) sameThresholds(p Options) bool {
	if o.MicroIdleNs != p.MicroIdleNs || o.ShortKernelNs != p.ShortKernelNs || o.QueueLength != p.QueueLength ||
		len(o.Steps) != len(p.Steps) || o.Phase != p.Phase {
		return false
	}
	for i := range o.Steps {
		if o.Steps[i] != p.Steps[i] {
			return false
		}
	}
	return true
}

// flags says o as the `orprof timeline` flags that differ from p's, each with its value and
// "(the default)" when it is DefaultOptions': "--micro-idle 5µs", "--steps all (the default)".
func (o Options) flags(p Options) []string {
	d := DefaultOptions()
	var out []string
	add := func(flag, v string, isDefault bool) {
		if isDefault {
			v += " (the default)"
		}
		out = append(out, flag+" "+v)
	}
	if !slices.Equal(o.Steps, p.Steps) {
		s := make([]string, len(o.Steps))
		for i, n := range o.Steps {
			s[i] = strconv.FormatInt(n, 10)
		}
		v := strings.Join(s, ",")
		if len(s) == 0 {
			v = "all"
		}
		add("--steps", v, len(s) == 0)
	}
	if o.Phase != p.Phase {
		v := o.Phase
		if v == "" {
			v = "none"
		}
		add("--phase", v, o.Phase == "")
	}
	if o.MicroIdleNs != p.MicroIdleNs {
		add("--micro-idle", time.Duration(o.MicroIdleNs).String(), o.MicroIdleNs == d.MicroIdleNs)
	}
	if o.ShortKernelNs != p.ShortKernelNs {
		add("--short-kernel", time.Duration(o.ShortKernelNs).String(), o.ShortKernelNs == d.ShortKernelNs)
	}
	if o.QueueLength != p.QueueLength {
		add("--queue-length", strconv.Itoa(o.QueueLength), o.QueueLength == d.QueueLength)
	}
	return out
}

// OptionsError is the error of a summary made with other options than the run asks for (Is
// ErrOtherOptions): its analyses ran when it was written. It names the summary, the flags it
// was made with and those asked for, with their values.
type OptionsError struct {
	// Name is the summary's input; Its the options it was made with, Asked the run's.
	Name       string
	Its, Asked Options
}

func (e *OptionsError) Error() string {
	return fmt.Sprintf("%s is a summary made with %s; this run asks for %s: give the traces, or the flags it was made with",
		e.Name, strings.Join(e.Its.flags(e.Asked), ", "), strings.Join(e.Asked.flags(e.Its), ", "))
}

// Is makes errors.Is(err, ErrOtherOptions) hold.
func (e *OptionsError) Is(target error) bool { return target == ErrOtherOptions }
