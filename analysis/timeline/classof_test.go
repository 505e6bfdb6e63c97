package timeline

import (
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/trace/tracefile"
)

// TestOneClassifier: the timeline classes device work as the kernel view categorises it, by the
// same rules (a user's among them), the kind deciding only waits and device-side ranges.
func TestOneClassifier(t *testing.T) {
	user, err := kernels.ParseRules(strings.NewReader("gemm ^Memcpy HtoD\ncommunication ^my_allreduce\n"), "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rules *kernels.Rules
		kind  tracefile.Kind
		name  string
		want  Class
	}{
		{nil, tracefile.KindKernel, "ncclDevKernel_AllReduce", Communication},
		{nil, tracefile.KindMemcpy, "Memcpy HtoD (Pageable -> Device)", Memory},
		{nil, tracefile.KindSync, "Stream Sync", Sync},
		{nil, tracefile.KindDeviceOther, "mtia_workloadd", Other},
		{nil, tracefile.KindDeviceAnnotation, "ncclDevKernel_range", Annotation},
		{nil, tracefile.KindKernel, "fused_Memcpy_kernel", Other},
		{nil, tracefile.KindKernel, "openreg::clamp_min_kernel", Computation},
		{user, tracefile.KindMemcpy, "Memcpy HtoD (Pageable -> Device)", Computation},
		{user, tracefile.KindKernel, "my_allreduce_ring", Communication},
		{user, tracefile.KindMemcpy, "Memcpy DtoH", Memory},
	} {
		c := newClassifier(tc.rules)
		if got, _, _ := c.class(tc.kind, tc.name); got != tc.want {
			t.Errorf("%v %q: %v, want %v", tc.kind, tc.name, got, tc.want)
		}
		r := tc.rules
		if r == nil {
			r = kernels.Default()
		}
		if got := ClassOf(tc.kind, r.Of(tc.kind, tc.name)); got != tc.want {
			t.Errorf("ClassOf %v %q: %v, want %v", tc.kind, tc.name, got, tc.want)
		}
	}
	// The name-only Classify agrees with the kernel view on kernels.
	for _, n := range []string{"ncclDevKernel_AllReduce", "Memcpy HtoD", "fused_Memcpy_kernel", "ampere_sgemm_128x64_nn", "Stream Sync"} {
		k := tracefile.KindKernel
		if n == "Stream Sync" {
			k = tracefile.KindSync
		}
		if got, want := Classify(n), ClassOf(k, kernels.Default().Of(k, n)); got != want {
			t.Errorf("Classify(%q) = %v, the consumer's %v", n, got, want)
		}
	}
}
