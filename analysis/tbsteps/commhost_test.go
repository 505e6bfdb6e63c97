package tbsteps

import "testing"

func TestIsCommHost(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"nccl:all_reduce", true}, {"gloo:broadcast", true}, {"nccl:reduce_scatter", true},
		{"aten::all_reduce", false}, {"nccl:send", false}, {"nccl:", false}, {"gloo", false}, {"", false},
		{"NCCL:all_reduce", false}, {"mpi_:all_reduce", false},
	} {
		if got := isCommHost(c.name); got != c.want {
			t.Errorf("isCommHost(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
