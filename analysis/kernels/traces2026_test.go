package kernels

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace/tracefile"
)

// TestTraces2026: the kernel view of the traces of 2026 (testdata/kineto-2026). A Stream Sync
// on its row stream + 1000000 ran on stream 7; ROCm kernels are on their HIP streams, not
// their shared hardware queue; a CUDA event record and PM-sampling counters are no kernels; an
// ncclDevKernel is communication.
func TestTraces2026(t *testing.T) {
	type row struct {
		kind     tracefile.Kind
		category Category
		streams  []Stream
	}
	for _, tc := range []struct {
		file string
		want map[string]row
	}{
		{"stream_sync.json", map[string]row{
			"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n": {tracefile.KindKernel, GEMM, []Stream{{0, 7}}},
			"Stream Sync":                           {tracefile.KindSync, Other, []Stream{{0, 7}}},
			"vectorized_elementwise_kernel":         {tracefile.KindKernel, Elementwise, []Stream{{0, 7}}},
		}},
		{"rocm_streams.json", map[string]row{
			"Cijk_Alik_Bljk_SB_MT64x16x32": {tracefile.KindKernel, GEMM, []Stream{{0, 1}}},
			"elementwise_kernel":           {tracefile.KindKernel, Elementwise, []Stream{{0, 2}}},
		}},
		{"cuda_event.json", map[string]row{
			"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n": {tracefile.KindKernel, GEMM, []Stream{{0, 7}}},
		}},
		{"pm_counters.json", map[string]row{
			"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n": {tracefile.KindKernel, GEMM, []Stream{{0, 7}}},
		}},
		{"nccl_dev_kernel.json", map[string]row{
			"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)": {tracefile.KindKernel, Communication, []Stream{{0, 20}}},
			"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n":                                     {tracefile.KindKernel, GEMM, []Stream{{0, 7}}},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, _, err := Open(filepath.Join("..", "..", "testdata", "kineto-2026", tc.file), 0, ReadOptions{})
			require.NoError(t, err)
			got := map[string]row{}
			for _, k := range s.Kernels {
				got[k.Name] = row{k.Kind, k.Category(Default()), k.Streams}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
