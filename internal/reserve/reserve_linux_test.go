package reserve

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const childEnv = "ORPROF_RESERVE_CHILD"

// faultsOf runs how in a fresh process (this test binary again) and returns the minor page
// faults that reserving 64 MiB of int64 and appending one element took there.
func faultsOf(t *testing.T, how string) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRoomWritesNothing$")
	cmd.Env = append(os.Environ(), childEnv+"="+how)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "faults "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no figure from the child: %s", out)
	return 0
}

var sink []int64

// Room costs no page it does not use, in a fresh process as the CLI is: reserving 64 MiB
// and using 8 bytes of it takes a handful of page faults, where slices.Grow takes one per page
// (16,384) and clears them all.
func TestRoomWritesNothing(t *testing.T) {
	if how := os.Getenv(childEnv); how != "" {
		const n = 8 << 20
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		before := ru.Minflt
		switch how {
		case "room":
			sink = append(Room([]int64(nil), n), 1)
		case "grow":
			sink = append(slices.Grow([]int64(nil), n), 1)
		}
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Printf("faults %d\n", ru.Minflt-before)
		return
	}
	room, grow := faultsOf(t, "room"), faultsOf(t, "grow")
	t.Logf("64 MiB reserved, 8 bytes used: %d page faults by Room, %d by slices.Grow", room, grow)
	require.Less(t, room, int64(1000), "Room wrote the pages it reserved")
}
