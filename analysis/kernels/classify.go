package kernels

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/tracefile"
)

// Category is what a kernel does, by its name: communication, memory, one of the kinds of
// computation, or other.
type Category uint8

const (
	// Communication: collectives and point-to-point transfers between devices (NCCL, RCCL,
	// HCCL kernels).
	Communication Category = iota
	// Memory: copies and fills (Memcpy …, Memset …, MTIA's dma_request).
	Memory
	// GEMM: matrix products (cuBLAS, CUTLASS, Tensile, gemm/gemv/matmul/bmm/addmm, MTIA fc).
	GEMM
	// Attention: fused attention (flash, fmha, SDPA, paged attention).
	Attention
	// Convolution: convolutions (conv, winograd, cuDNN fprop/dgrad/wgrad).
	Convolution
	// Elementwise: one output element from the same elements of the inputs, and data movement
	// done by kernels (copy, cat, index, permute, fill, random).
	Elementwise
	// Reduction: reductions along a dimension, and the normalizations and softmax built on them.
	Reduction
	// ComputeOther: computation none of the above names.
	ComputeOther
	// Other: device work that is not computation (synchronization, MTIA job bookkeeping).
	Other
	numCategories
)

var categoryNames = [...]string{"communication", "memory", "gemm", "attention", "convolution",
	"elementwise", "reduction", "computation", "other"}

// String returns the category's name as rules files and outputs spell it: "communication",
// "memory", "gemm", "attention", "convolution", "elementwise", "reduction", "computation"
// (ComputeOther) or "other".
func (c Category) String() string {
	if c < numCategories {
		return categoryNames[c]
	}
	return fmt.Sprintf("Category(%d)", int(c))
}

// Group is the category as HolisticTraceAnalysis's kernel types name it: "communication",
// "memory", "computation" (GEMM through ComputeOther) or "other".
func (c Category) Group() string {
	switch c {
	case Communication, Memory, Other:
		return c.String()
	}
	return "computation"
}

// ParseCategory reads a category name (String's spelling).
func ParseCategory(s string) (Category, bool) {
	for i, n := range categoryNames {
		if n == s {
			return Category(i), true
		}
	}
	return 0, false
}

// Categories lists every category in order.
func Categories() []Category {
	c := make([]Category, numCategories)
	for i := range c {
		c[i] = Category(i)
	}
	return c
}

// rule classifies the names its pattern matches (anywhere in the name, unless the pattern is
// anchored).
type rule struct {
	cat Category
	re  *regexp.Regexp
	src string // where it was written: "built-in" or FILE:LINE
}

// Rules classify kernel names: the first rule whose pattern matches a name gives its category;
// a name no rule matches is ComputeOther. Every view (the kernel table, the timeline, the
// steps, the report) asks the same Rules, which decide each distinct name once, in one scan of
// the name (match.go). A Rules is safe for concurrent use.
type Rules struct {
	rules []rule
	user  int // the first user rules come from a file; a user's rule wins over a kind
	once  sync.Once
	m     *matcher // built on first use: a command that classifies nothing does not pay for it
	// memo holds each name's first matching rule and tensor-core flag (string → int32:
	// the rule's index + 1, memoTC added when the name is a tensor core kernel's).
	memo sync.Map
}

// The built-in rules, in the order they are tried. The first three follow
// HolisticTraceAnalysis's kernel types (reference: hta.md, "Kernel classification"): a name
// is communication when it starts with nccl or hccl or holds ncclKernel, memory when it starts
// with Memcpy, Memset (with or without hip) or dma, and not computation when it names a
// synchronization or one of MTIA's job steps. The computation kinds are orprof's own.
var builtin = []struct {
	cat Category
	re  string
}{
	{Communication, `^(nccl|rccl|hccl|ccl)|ncclKernel|ncclDevKernel`},
	{Memory, `^(hip)?(Memcpy|Memset)|^dma`},
	{Other, `Memcpy|Memset|dma|Sync|^Stream Wait Event|^(cuda|hip|cu)\w*LaunchKernel|^runFunction|^job_exe|^packet|^pe_exe|^cpum_exe_subgraph|^collective_subgraph_execution`},
	{Elementwise, `(?i)elementwise|vectorized_|unrolled_|pointwise|triton_poi_|multi_tensor_apply|foreach|indexFunc|indexSelect|nchwTo|nhwcTo|clamp`},
	{Attention, `(?i)attention|attn|fmha|flash_?(fwd|bwd|attn)|sdpa|mha_(fwd|bwd)`},
	{Convolution, `(?i)conv([^e]|$)|winograd|dgrad|wgrad|fprop|implicit_?gemm|scudnn|cask_cudnn`},
	{GEMM, `(?i)(^|[^b])gemm|gemv|matmul|cublas|cutlass|xmma|nvjet|Cijk_|(^|[^a-z])(bmm|baddbmm|addmm|mm|fc)([^a-z]|$)`},
	{Reduction, `(?i)reduc|triton_(red|per)_|softmax|norm($|[^a])|(^|[^a-z])bn_|GammaBeta|Moments|pool|argmax|argmin|cumsum|scan|topk|sort|(^|[^a-z])(sum|mean|max|min|prod|std|var)([^a-z]|$)|max_dim|min_dim|loss(2d)?_forward|_loss_(kernel|f16|f32|f64)`},
	{Elementwise, `(?i)fill|copy|scale|(^|[^a-z])(add|sub|mul|div|neg|abs|exp|log|pow|sqrt|rsqrt|reciprocal|sigmoid|tanh|relu|gelu|silu|clamp|clip|where|cat|index|gather|scatter|permute|transpose|cast|dropout|bernoulli|uniform|normal|embedding|nan_to_num|(eq|ne|gt|lt|ge|le)([^a-z]|$))|distribution|CatArray|_backward`},
}

var defaultRules = func() *Rules {
	r := &Rules{}
	for _, b := range builtin {
		r.rules = append(r.rules, rule{cat: b.cat, re: regexp.MustCompile(b.re), src: "built-in"})
	}
	return r
}()

// matcher is the matcher of r's rules, built on the first call.
func (r *Rules) matcher() *matcher {
	r.once.Do(func() {
		res := make([]*regexp.Regexp, len(r.rules))
		for i := range r.rules {
			res[i] = r.rules[i].re
		}
		r.m = newMatcher(res, tensorCoreKeys)
	})
	return r.m
}

// Default returns the built-in rules.
func Default() *Rules { return defaultRules }

// first is the index of the first rule that matches name, or -1.
func (r *Rules) first(name string) int {
	i, _ := r.decide(name)
	return i
}

const memoTC = 1 << 30

// decide is first's answer and TensorCore's, from one scan of name.
func (r *Rules) decide(name string) (first int, tc bool) {
	v, ok := r.memo.Load(name)
	if !ok {
		i, tc := r.matcher().scan(name)
		m := int32(i + 1)
		if tc {
			m |= memoTC
		}
		v, _ = r.memo.LoadOrStore(name, m)
	}
	m := v.(int32)
	return int(m&^memoTC) - 1, m&memoTC != 0
}

// Classify returns the category of the kernel named name: that of the first rule that matches
// it, else ComputeOther.
func (r *Rules) Classify(name string) Category {
	if r == nil {
		r = defaultRules
	}
	if i := r.first(name); i >= 0 {
		return r.rules[i].cat
	}
	return ComputeOther
}

// Of returns the category of device work of kind k named name: a user's rule that matches the
// name first; else memory for a copy or fill and other for a synchronization or unknown device
// work, as the trace's categories say; else Classify's answer. Every view classifies by Of.
func (r *Rules) Of(k tracefile.Kind, name string) Category { return r.Lookup(name).Of(k) }

// Lookup is what the rules say of name, for any kind (Decision.Of): a view that keeps it per
// name decides each name once.
func (r *Rules) Lookup(name string) Decision {
	if r == nil {
		r = defaultRules
	}
	i, tc := r.decide(name)
	if i < 0 {
		return Decision{cat: ComputeOther, tc: tc}
	}
	return Decision{cat: r.rules[i].cat, user: i < r.user, tc: tc}
}

// Decision is a name's category under a Rules, before the kind of the work is known.
type Decision struct {
	cat  Category
	user bool // a user's rule decided it
	tc   bool // TensorCore(name)
}

// TensorCore is TensorCore's answer for the decided name, found by the same scan.
func (d Decision) TensorCore() bool { return d.tc }

// Of is the category of work of kind k with the decided name (Rules.Of).
func (d Decision) Of(k tracefile.Kind) Category {
	if !d.user {
		switch k {
		case tracefile.KindMemcpy, tracefile.KindMemset:
			return Memory
		case tracefile.KindSync, tracefile.KindDeviceOther:
			return Other
		}
	}
	return d.cat
}

// ParseRules reads a rules file and returns the built-in rules extended by it: its rules are
// tried first, in file order, then the built-in ones. name names the file in errors.
//
// The format: one rule per line, a category name (Category.String: communication, memory,
// gemm, attention, convolution, elementwise, reduction, computation, other), white space, and
// a regular expression (Go's RE2 syntax) matched anywhere in the kernel name unless anchored
// with ^ or $; (?i) makes it ignore case. Blank lines and lines starting with # are skipped.
// For example:
//
//	# our fused kernels
//	attention  ^my_fused_mha_
//	gemm       (?i)^tile_matmul
//	other      ^profiler_marker
//
// A bad line is an error naming the file and line, quoting at most ~100 bytes of it.
func ParseRules(rd io.Reader, name string) (*Rules, error) {
	r := &Rules{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		catName, pat, _ := strings.Cut(text, " ")
		if i := strings.IndexAny(text, " \t"); i >= 0 {
			catName, pat = text[:i], strings.TrimSpace(text[i:])
		}
		cat, ok := ParseCategory(catName)
		if !ok {
			return nil, fmt.Errorf("%s:%d: %s is not a category (communication, memory, gemm, attention, convolution, elementwise, reduction, computation or other)",
				name, line, quote.String(catName))
		}
		if pat == "" {
			return nil, fmt.Errorf("%s:%d: %s has no pattern (a line is: CATEGORY REGEXP)", name, line, quote.String(text))
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: pattern %s: %v", name, line, quote.String(pat), quote.Clip(err.Error()))
		}
		r.rules = append(r.rules, rule{cat: cat, re: re, src: fmt.Sprintf("%s:%d", name, line)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	r.user = len(r.rules)
	r.rules = append(r.rules, defaultRules.rules...)
	return r, nil
}

// LoadRules is ParseRules of the file at path.
func LoadRules(path string) (*Rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseRules(f, path)
}
