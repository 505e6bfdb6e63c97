package gz

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceLike returns n bytes shaped like trace JSON: repetitive lines with varying numbers, so
// that deflate finds matches both within a block and across a block's start.
func traceLike(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	var b []byte
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op_%d\", \"pid\": 1234, \"tid\": %d, \"ts\": %d.%03d, \"dur\": %d.%03d},",
			rng.IntN(200), rng.IntN(4)+1, i*4, rng.IntN(1000), 3+rng.IntN(2), rng.IntN(1000))
		if rng.IntN(50) == 0 { // now and then bytes deflate cannot shorten
			for range rng.IntN(5000) {
				b = append(b, byte(rng.Uint32()))
			}
		}
	}
	return b[:n]
}

// compressAll writes data to a Writer of the given block size and workers in pieces of chunk
// bytes and returns the gzip bytes.
func compressAll(t *testing.T, data []byte, block, workers, chunk int) []byte {
	t.Helper()
	var out bytes.Buffer
	w := newWriter(&out, block, workers, kflate.BestSpeed)
	for p := data; len(p) > 0; {
		c := min(chunk, len(p))
		k, err := w.Write(p[:c])
		require.NoError(t, err)
		require.Equal(t, c, k)
		p = p[c:]
	}
	require.NoError(t, w.Close())
	return out.Bytes()
}

// gunzipStd decompresses exactly one gzip member with the standard library, checking CRC and
// size, and fails on anything after it.
func gunzipStd(t *testing.T, z []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(z))
	require.NoError(t, err)
	r.Multistream(false)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Empty(t, rest)
	require.NoError(t, r.Close())
	// The member ends exactly where the data ends: read it again and count what is left.
	br := bytes.NewReader(z)
	r2, err := gzip.NewReader(br)
	require.NoError(t, err)
	r2.Multistream(false)
	_, err = io.Copy(io.Discard, r2)
	require.NoError(t, err)
	require.Zero(t, br.Len(), "one gzip member, nothing after it")
	return got
}

// gunzipOurs decompresses with this package's Reader (what `orprof table` reads .gz with).
func gunzipOurs(t *testing.T, z []byte) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(z))
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Zero(t, r.TrailingBytes(), "nothing after the member")
	return got
}

func gunzipKlauspost(t *testing.T, z []byte) []byte {
	t.Helper()
	r, err := kgzip.NewReader(bytes.NewReader(z))
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	return got
}

// Under -race it samples (the three-worker writer, every block size); .ci/run's no-race step
// runs the whole matrix (the name says Large).
func TestRoundTripLarge(t *testing.T) {
	data := traceLike(3<<20+12345, 1)
	chunks := []int{1 << 10, 64 << 10, 3 << 20}
	k := 0
	for _, block := range []int{1, 7, 100, 4 << 10, 32<<10 - 1, 32 << 10, 32<<10 + 1, 100 << 10, 1 << 20, 4 << 20} {
		big := len(data)
		if block < 100<<10 {
			big = 20*block + 12345 // tiny blocks over megabytes: slow and no new case
		}
		for _, n := range []int{0, 1, block - 1, block, block + 1, 2*block + 3, big} {
			if n < 0 || n > len(data) {
				continue
			}
			for _, workers := range []int{1, 3} {
				k++
				if raceEnabled && (workers == 1 || k%3 != 0) {
					continue
				}
				chunk := chunks[k%len(chunks)] // every write size meets every block size in turn
				if block < 4<<10 {
					chunk = 1 + k%5
				}
				name := fmt.Sprintf("block=%d/n=%d/workers=%d/chunk=%d", block, n, workers, chunk)
				z := compressAll(t, data[:n], block, workers, chunk)
				require.True(t, bytes.Equal(data[:n], gunzipStd(t, z)), "%s: stdlib round trip differs", name)
				require.True(t, bytes.Equal(data[:n], gunzipKlauspost(t, z)), "%s: klauspost round trip differs", name)
				require.True(t, bytes.Equal(data[:n], gunzipOurs(t, z)), "%s: Reader round trip differs", name)
			}
		}
	}
}

// TestGzipTool: the gzip program reads our output, with its CRC and size checked (gzip -t),
// to the same bytes.
func TestGzipTool(t *testing.T) {
	if _, err := exec.LookPath("gzip"); err != nil {
		t.Skip("gzip not found: " + err.Error())
	}
	data := traceLike(5<<20+777, 3)
	for _, n := range []int{0, 1000, len(data)} {
		z := compressAll(t, data[:n], blockSize, 1, 64<<10)
		cmd := exec.Command("gzip", "-dc")
		cmd.Stdin = bytes.NewReader(z)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		require.NoError(t, err, "gzip -dc: %s", stderr.String())
		require.True(t, bytes.Equal(data[:n], got), "n=%d: gzip -dc gives other bytes", n)
		cmd = exec.Command("gzip", "-t")
		cmd.Stdin = bytes.NewReader(z)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "gzip -t: %s", out)
		assert.Empty(t, out)
	}
}

// TestHeader: the member's header says deflate, no name, no mtime (0), fastest, as the
// standard library's gzip at BestSpeed writes it. (klauspost's gzip writes the zero time.Time
// as a 2042 date.)
func TestHeader(t *testing.T) {
	z := compressAll(t, []byte("x"), blockSize, 1, 1)
	var ref bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&ref, gzip.BestSpeed)
	zw.Write([]byte("x"))
	zw.Close()
	assert.Equal(t, ref.Bytes()[:10], z[:10])
}

// TestRatioLarge: cutting the input into blocks costs almost nothing in size, because each block
// starts with the previous 32 KiB as its dictionary: within 1 % of one klauspost gzip stream
// at the same level, and much better than independent blocks would be at small block sizes.
func TestRatioLarge(t *testing.T) {
	if raceEnabled {
		t.Skip("one writer goroutine and 8 MB: run without -race")
	}
	data := traceLike(8<<20, 4)
	var ref bytes.Buffer
	zw, _ := kgzip.NewWriterLevel(&ref, kgzip.BestSpeed)
	zw.Write(data)
	require.NoError(t, zw.Close())
	z := compressAll(t, data, blockSize, 1, 64<<10)
	assert.Less(t, float64(len(z)), 1.01*float64(ref.Len()), "blocks of 1 MiB: %d bytes vs one stream %d", len(z), ref.Len())

	// The dictionary matters at 64 KiB blocks: without it each block starts from nothing.
	small := compressAll(t, data, 64<<10, 1, 64<<10)
	var indep bytes.Buffer
	fw, _ := kflate.NewWriter(&indep, kflate.BestSpeed)
	for p := data; len(p) > 0; p = p[min(len(p), 64<<10):] {
		fw.Reset(&indep)
		fw.Write(p[:min(len(p), 64<<10)])
		fw.Flush()
	}
	assert.Less(t, len(small), indep.Len(), "the dictionary makes 64 KiB blocks smaller than independent ones")
}

type failWriter struct {
	after int // bytes accepted before failing
	calls int
}

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	f.calls++
	if f.after < len(p) {
		n := f.after
		f.after = 0
		return n, errDisk
	}
	f.after -= len(p)
	return len(p), nil
}

func TestDestinationErrorStopsTheWriter(t *testing.T) {
	for _, workers := range []int{1, 3} {
		for _, after := range []int{0, 5, 100, 300 << 10} {
			dst := &failWriter{after: after}
			w := newWriter(dst, 64<<10, workers, kflate.BestSpeed)
			data := traceLike(64<<10, 5)
			var err error
			i := 0
			for ; i < 1000 && err == nil; i++ {
				_, err = w.Write(data)
			}
			require.ErrorIs(t, err, errDisk, "after=%d: Write reports the destination's error before the input ends", after)
			assert.Less(t, i, 1000)
			calls := dst.calls
			assert.ErrorIs(t, w.Close(), errDisk)
			assert.Equal(t, calls, dst.calls, "nothing more is written after the error")
			_, err = w.Write([]byte("x"))
			assert.ErrorIs(t, err, ErrClosed)
			assert.ErrorIs(t, w.Close(), ErrClosed)
		}
	}
}

func TestCloseReportsTrailerError(t *testing.T) {
	w := NewWriter(&failWriter{after: 0})
	_, err := w.Write([]byte("small"))
	require.NoError(t, err, "nothing reaches the destination before Close")
	assert.ErrorIs(t, w.Close(), errDisk)
}

// TestDevFull: ENOSPC from a real device is returned, by Write or at the latest by Close.
func TestDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("/dev/full cannot be opened: " + err.Error())
	}
	defer f.Close()
	for _, n := range []int{0, 10, 5 << 20} {
		w := NewWriter(f)
		_, werr := w.Write(traceLike(n, 6))
		cerr := w.Close()
		assert.ErrorIs(t, errors.Join(werr, cerr), syscall.ENOSPC, "n=%d", n)
		assert.Error(t, cerr, "n=%d: Close reports the error too", n)
	}
}

// TestNoGoroutineLeft: Close ends the background goroutines.
func TestNoGoroutineLeft(t *testing.T) {
	data := traceLike(3<<20, 7)
	before := runtime.NumGoroutine()
	for range 5 {
		compressAll(t, data, 256<<10, 3, 64<<10)
	}
	// Not assert.Eventually: it polls from a goroutine of its own.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if runtime.NumGoroutine() > before {
		t.Errorf("goroutines left running after Close")
		buf := make([]byte, 1<<20)
		t.Logf("%d goroutines before, now:\n%s", before, buf[:runtime.Stack(buf, true)])
	}
}
