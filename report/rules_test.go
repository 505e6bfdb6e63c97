package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/kernels"
)

// Options.Rules reach every analysis that classes kernels: with a rule classing every kernel
// as communication, the timeline has no computation left and the Timeline's lanes colour
// every kernel so.
func TestOptionsRules(t *testing.T) {
	const path = "../testdata/kineto/rocm_mi250_train.json.gz"
	rules, err := kernels.ParseRules(strings.NewReader("communication .\n"), "comm.rules")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := Open(path, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ruled, _, err := Open(path, 0, Options{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	p, r := plain.Timeline.Breakdown[0], ruled.Timeline.Breakdown[0]
	if p.ComputeNs == 0 || r.ComputeNs != 0 || r.CommunicationNs == 0 {
		t.Errorf("timeline compute %d → %d ns, communication %d → %d ns: the rules did not reach it",
			p.ComputeNs, r.ComputeNs, p.CommunicationNs, r.CommunicationNs)
	}
	comm := int16(slices.Index(ruled.Lanes.Categories, "communication"))
	kernelCats := func(b *Bundle) (n, asComm int) {
		for _, l := range b.Lanes.Ranks[0].Lanes {
			for _, c := range l.C {
				if l.Kind == "stream" && int(c) < len(kernels.Categories()) {
					n++
					if c == comm {
						asComm++
					}
				}
			}
		}
		return n, asComm
	}
	if n, c := kernelCats(plain); n == 0 || c == n {
		t.Errorf("without rules: %d of %d kernels drawn as communication", c, n)
	}
	if n, c := kernelCats(ruled); n == 0 || c != n {
		t.Errorf("with rules: %d of %d kernels drawn as communication, want all", c, n)
	}
}
