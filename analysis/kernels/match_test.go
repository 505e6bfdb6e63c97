package kernels

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/tracetest"
	"github.com/orprof/orprof/trace/tracefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstByRegexp is what the matcher must answer: the first rule whose regexp matches.
func firstByRegexp(res []*regexp.Regexp, name string) int {
	for i, re := range res {
		if re.MatchString(name) {
			return i
		}
	}
	return -1
}

// matchNames are names to compare the matcher with the regexps on: pieces of the built-in
// rules' words, joined with punctuation, in mixed case, with non-ASCII and invalid bytes.
func matchNames(n int) []string {
	words := []string{"nccl", "rccl", "hccl", "ncclKernel", "Memcpy", "Memset", "hip", "dma", "Sync", "Stream Wait Event",
		"cuda", "LaunchKernel", "cuLaunchKernel", "runFunction", "job_exe", "elementwise", "vectorized_", "triton_poi_",
		"flash", "_", "fwd", "attn", "conv", "convert", "gemm", "bgemm", "mm", "bmm", "fc", "Cijk_", "norm", "norma",
		"sum", "mean", "max", "min", "clamp", "nll_loss", "_forward", "_backward", "loss_kernel", "eq", "le", "add",
		"copy", "x", "Z", "0", "9", " ", "-", "::", "<", ">", "(", ")", "é", "\u017f", "\u212a", "\xff", "\xe2\x82",
		"ſum", "reduce", "ReDuC", "softmax", "bn_", "GammaBeta", "k", "s", "S"}
	r := rand.New(rand.NewPCG(1, 2))
	var out []string
	for range n {
		var b strings.Builder
		for range r.IntN(8) {
			w := words[r.IntN(len(words))]
			if r.IntN(4) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
		}
		out = append(out, b.String())
	}
	return out
}

// TestMatcherIsTheRegexps: the matcher answers what trying the regexps in order answers, for
// the built-in rules and for user rules of every shape (literal, expanded, kept as regexp).
func TestMatcherIsTheRegexps(t *testing.T) {
	user := []string{`^my_fused_mha_`, `(?i)^tile_MATMUL`, `.`, `[0-9]+x[0-9]+`, `\bfoo\b`, `(?i)ſum|K`, `a{2,}b`,
		`^$`, `loss$`, `(?m)^x`, `é`, `(?i)é`, `\xff`, `x*`}
	sets := [][]string{nil, user[:2], user}
	for _, s := range user {
		sets = append(sets, []string{s})
	}
	names := append(matchNames(4000), "", "x", "my_fused_mha_fwd", "tile_matmul", "loss", "foo bar", "aab",
		"volta_h884gemm", "XMMA_GEMM", "sm80_xmma_gemm_f16", "conv1x1ſ", "16816")
	for _, tt := range []struct{ name string }{{"ncclKernel_AllReduce"}} {
		names = append(names, tt.name)
	}
	for _, set := range sets {
		var res []*regexp.Regexp
		for _, s := range set {
			res = append(res, regexp.MustCompile(s))
		}
		for _, b := range builtin {
			res = append(res, regexp.MustCompile(b.re))
		}
		m, marked := newMatcher(res, nil), newMatcher(res, tensorCoreKeys)
		for _, n := range names {
			require.Equal(t, firstByRegexp(res, n), m.lookup(n), "rules %q, name %q", set, n)
			first, tc := marked.scan(n)
			require.Equal(t, firstByRegexp(res, n), first, "rules %q and marks, name %q", set, n)
			require.Equal(t, hasTensorCoreKey(n), tc, "rules %q, marks of name %q", set, n)
		}
	}
}

func hasTensorCoreKey(name string) bool {
	for _, k := range tensorCoreKeys {
		if strings.Contains(name, k) {
			return true
		}
	}
	return false
}

// TestBuiltinRulesExpand: every built-in rule but the launch calls' is matched by the
// automaton alone, without its regexp.
func TestBuiltinRulesExpand(t *testing.T) {
	m := Default().matcher()
	for i, b := range builtin {
		assert.Equal(t, i == 2, m.hasRe[i], "rule %d (%s)", i, b.re)
	}
	assert.Empty(t, m.always)
}

// TestIssue33Categories: the MLP's ReLU (clamp_min) is elementwise on every device; a loss's
// forward reduces over the batch, its backward is elementwise.
func TestIssue33Categories(t *testing.T) {
	for name, want := range map[string]Category{
		"openreg::clamp_min_kernel":         Elementwise,
		"clamp_min_f32":                     Elementwise,
		"openreg::nll_loss_forward_kernel":  Reduction,
		"nll_loss_forward_f32":              Reduction,
		"openreg::mse_loss_kernel":          Reduction,
		"openreg::nll_loss_backward_kernel": Elementwise,
		"openreg::mse_loss_backward_kernel": Elementwise,
		"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>": Reduction,
	} {
		assert.Equal(t, want, Default().Classify(name), name)
	}
}

// BenchmarkClassifyLongNames is one classification of each of 5,000 distinct ~2 KB names
// (tracetest.LongKernelNames), by the matcher and by trying the regexps in order.
func BenchmarkClassifyLongNames(b *testing.B) {
	tr := tracetest.LongKernelNames(5000, 2048)
	var names []string
	var bytes int64
	for _, e := range tr.Events {
		if e.Cat == "kernel" {
			names = append(names, e.Name)
			bytes += int64(len(e.Name))
		}
	}
	var res []*regexp.Regexp
	for _, r := range Default().rules {
		res = append(res, r.re)
	}
	b.Run("matcher", func(b *testing.B) {
		b.SetBytes(bytes)
		for b.Loop() {
			for _, n := range names {
				Default().matcher().lookup(n)
			}
		}
	})
	b.Run("regexps", func(b *testing.B) {
		b.SetBytes(bytes)
		for b.Loop() {
			for _, n := range names {
				firstByRegexp(res, n)
			}
		}
	})
}

// TestUserRuleWinsOverKind: a user's rule decides copies, fills and syncs too (docs/kernels.md:
// a user's rule always wins); without one, their kind does.
func TestUserRuleWinsOverKind(t *testing.T) {
	r, err := ParseRules(strings.NewReader("other ^Memcpy\ncommunication ^Stream Sync\ngemm ^fill_\n"), "r.txt")
	require.NoError(t, err)
	for _, tt := range []struct {
		kind tracefile.Kind
		name string
		want Category
	}{
		{tracefile.KindMemcpy, "Memcpy HtoD (Pageable -> Device)", Other},
		{tracefile.KindSync, "Stream Sync", Communication},
		{tracefile.KindMemset, "fill_kernel", GEMM},
		{tracefile.KindMemset, "Memset (Device)", Memory},
		{tracefile.KindSync, "Event Sync", Other},
		{tracefile.KindMemcpy, "ncclDevKernel_x", Memory},
	} {
		assert.Equal(t, tt.want, r.Of(tt.kind, tt.name), "%v %q", tt.kind, tt.name)
		k := &Kernel{Name: tt.name, Kind: tt.kind}
		assert.Equal(t, tt.want, k.Category(r), "%v %q", tt.kind, tt.name)
	}
}

// FuzzMatcher: for any rule and name, the matcher (with the built-in rules after the rule)
// answers what the regexps tried in order answer.
func FuzzMatcher(f *testing.F) {
	f.Add(`^my_fused_mha_`, "my_fused_mha_fwd")
	f.Add(`(?i)ſum|K`, "the \u212a sum")
	f.Add(`(^|[^a-z])(mm|fc)([^a-z]|$)`, "aten::mm")
	f.Fuzz(func(t *testing.T, re, name string) {
		r, err := regexp.Compile(re)
		if err != nil {
			return
		}
		res := []*regexp.Regexp{r}
		for _, b := range builtin {
			res = append(res, regexp.MustCompile(b.re))
		}
		if got, want := newMatcher(res, nil).lookup(name), firstByRegexp(res, name); got != want {
			t.Fatalf("rule %q, name %q: matcher %d, regexps %d", re, name, got, want)
		}
	})
}

func ExampleRules_Of() {
	r, err := ParseRules(strings.NewReader("other ^Memcpy HtoD\n"), "rules.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Of(tracefile.KindMemcpy, "Memcpy HtoD (Pageable -> Device)")) // the user's rule wins
	fmt.Println(r.Of(tracefile.KindMemcpy, "Memcpy DtoH (Device -> Pinned)"))   // a copy is memory
	fmt.Println(r.Of(tracefile.KindKernel, "void at::native::vectorized_elementwise_kernel<4, clamp_min_scalar_kernel_impl>"))
	// Output:
	// other
	// memory
	// elementwise
}
