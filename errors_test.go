package orprof_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/internal/errtext"
	_ "github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/stubs"
)

// wrappingBackend fails every Record with an error that already names the device and hook, as
// a Go backend that wraps its own errors would.
type wrappingBackend struct{ stubs.Stubs }

func (wrappingBackend) Enabled() bool { return true }
func (wrappingBackend) Record(context.Context, stubs.Want) (stubs.Recorded, error) {
	return stubs.Recorded{}, stubs.Wrap("wrapreg", "record", errors.New("queue full"))
}
func (wrappingBackend) OnEachDevice(ctx context.Context, fn func(context.Context, int) error) error {
	return fn(ctx, 0)
}

// Every backend failure that reaches the user carries the device and hook once: through the C
// loader (whose backend's lastError may repeat the hook name), a Go backend that wraps its own
// errors, and the session's Start, Stop and RangePop.
func TestBackendErrorsPrefixedOnce(t *testing.T) {
	check := func(t *testing.T, got error, want string) {
		t.Helper()
		require.Error(t, got)
		assert.Equal(t, want, got.Error())
		assert.Empty(t, errtext.Repeated(got.Error()), "a prefix repeated in %q", got)
	}
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())

	t.Run("C backend", func(t *testing.T) {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Skip("gcc not found: the C backend cannot be built")
		}
		// 4 events: 2 are the session's references, so the second op's record fails.
		so := filepath.Join(t.TempDir(), "libtestreg.so")
		out, err := exec.Command("gcc", "-shared", "-fPIC", "-O2", "-Istubs", "-DEVENT_POOL=4", "-o", so,
			"stubs/testdata/good.c", "-lpthread").CombinedOutput()
		require.NoError(t, err, "%s", out)
		c, err := stubs.Open(so)
		require.NoError(t, err)
		stubs.Register("testreg", c)
		t.Cleanup(func() { stubs.Unregister("testreg"); _ = c.Close() })
		sess, err := orprof.Start(orprof.Options{Device: "testreg"})
		require.NoError(t, err)
		for range 2 {
			orprof.RecordFunction(ctx, "op").End()
		}
		perr := orprof.RangePop()
		_, err = sess.Stop()
		check(t, perr, "testreg: rangePop: nothing pushed on this thread")
		check(t, err, "testreg: record: event pool exhausted (4 events live)\n"+
			"testreg: record: event pool exhausted (4 events live)")
	})

	t.Run("Go backend wrapping its errors", func(t *testing.T) {
		stubs.Register("wrapreg", wrappingBackend{})
		t.Cleanup(func() { stubs.Unregister("wrapreg") })
		_, err := orprof.Start(orprof.Options{Device: "wrapreg"})
		check(t, err, "wrapreg: record: queue full")
	})

	t.Run("OpenReg", func(t *testing.T) {
		// OpenReg's ranges are no-ops, as PyTorch's: a pop with nothing pushed succeeds.
		sess, err := orprof.Start(orprof.Options{Device: "openreg"})
		require.NoError(t, err)
		require.NoError(t, orprof.RangePop())
		_, err = sess.Stop()
		require.NoError(t, err)
	})
}
