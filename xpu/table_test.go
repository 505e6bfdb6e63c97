package xpu

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteMetricsTable(t *testing.T) {
	sc := func(name string, vals ...float64) Scope {
		return Scope{Name: name, Kernels: 1, Metrics: fakeMetrics, Values: vals}
	}
	scopes := []Scope{
		sc("openreg::gemm_f32", 1000, 40, 2, 0),
		sc("openreg::relu", 10, 5, 1, 1),
		sc("openreg::gemm_f32", 3000, 60, 4, 1),
	}
	tests := []struct {
		name    string
		metrics []string
		want    string
	}{
		{"all metrics", nil, `
---------------------  ------------  ------------  ------------  ------------  ------------  
                 Name   # of Scopes     Time (ns)      Busy (%)          Peak       Spilled  
---------------------  ------------  ------------  ------------  ------------  ------------  
    openreg::gemm_f32             2      2000.000        50.000         3.000         0.500  
        openreg::relu             1        10.000         5.000         1.000         1.000  
---------------------  ------------  ------------  ------------  ------------  ------------  
Scopes total: 3
`},
		{"chosen metrics", []string{"Busy", "Time"}, `
---------------------  ------------  ------------  ------------  
                 Name   # of Scopes      Busy (%)     Time (ns)  
---------------------  ------------  ------------  ------------  
    openreg::gemm_f32             2        50.000      2000.000  
        openreg::relu             1         5.000        10.000  
---------------------  ------------  ------------  ------------  
Scopes total: 3
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, WriteMetricsTable(&b, scopes, tc.metrics))
			assert.Equal(t, tc.want[1:], b.String())
		})
	}

	var b strings.Builder
	require.EqualError(t, WriteMetricsTable(&b, scopes, []string{"Nope"}), `xpu: metrics table: the scopes have no metric "Nope"`)

	long := strings.Repeat("x", 60)
	b.Reset()
	require.NoError(t, WriteMetricsTable(&b, []Scope{sc(long, 1, 1, 1, 1)}, []string{"Time"}))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, strings.Repeat("x", 52)+"...  ", lines[3][:57], "long names are cut as PyTorch cuts them")
}
