package ops

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/openreg"
)

func tensorOf(t *testing.T, ctx context.Context, rt *openreg.Runtime, data []float32, shape ...int64) *Tensor {
	t.Helper()
	x, err := FromSlice(ctx, rt, openreg.CurrentDevice(ctx), data, shape...)
	require.NoError(t, err)
	return x
}

func hostOf(t *testing.T, ctx context.Context, x *Tensor) []float32 {
	t.Helper()
	v, err := x.ToHost(ctx)
	require.NoError(t, err)
	return v
}

func assertClose(t *testing.T, want, got []float32, msgAndArgs ...any) {
	t.Helper()
	require.Equal(t, len(want), len(got), msgAndArgs...)
	for i := range want {
		tol := 1e-4 * math.Max(1, math.Abs(float64(want[i])))
		require.InDelta(t, want[i], got[i], tol, append([]any{"element %d"}, append([]any{i}, msgAndArgs...)...)...)
	}
}

// hostMm is the float64 reference product of row-major a [m,k] and b [k,n].
func hostMm(a, b []float32, m, k, n int) []float32 {
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a[i*k+p]) * float64(b[p*n+j])
			}
			out[i*n+j] = float32(s)
		}
	}
	return out
}

func hostSoftmax(row []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range row {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range row {
		s += math.Exp(v - mx)
	}
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = math.Exp(v-mx) / s
	}
	return out
}

func TestOpsNumerics(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx := context.Background()
	A := func() *Tensor { return tensorOf(t, ctx, rt, []float32{1, 2, 3, 4, 5, 6}, 2, 3) }
	B := func() *Tensor { return tensorOf(t, ctx, rt, []float32{7, 8, 9, 10, 11, 12}, 3, 2) }
	W := func() *Tensor { return tensorOf(t, ctx, rt, []float32{7, 9, 11, 8, 10, 12}, 2, 3) } // Wᵀ = B
	bias := func() *Tensor { return tensorOf(t, ctx, rt, []float32{1, 2}, 2) }
	v4 := func(a, b, c, d float32) *Tensor { return tensorOf(t, ctx, rt, []float32{a, b, c, d}, 4) }
	sm := hostSoftmax([]float64{1, 2, 3})
	lse := math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3))
	ce := (-(math.Log(sm[2])) - (math.Log(sm[0]))) / 2

	tests := []struct {
		name  string
		op    func() (*Tensor, error)
		shape []int64
		want  []float32
	}{
		{"mm", func() (*Tensor, error) { return Mm(ctx, A(), B()) }, []int64{2, 2}, []float32{58, 64, 139, 154}},
		{"matmul", func() (*Tensor, error) { return Matmul(ctx, A(), B()) }, []int64{2, 2}, []float32{58, 64, 139, 154}},
		{"mm of transposed views", func() (*Tensor, error) {
			bt, _ := T(ctx, B())
			at, _ := T(ctx, A())
			return Mm(ctx, bt, at) // (AB)ᵀ
		}, []int64{2, 2}, []float32{58, 139, 64, 154}},
		{"addmm, 1-D bias", func() (*Tensor, error) { return Addmm(ctx, bias(), A(), B()) }, []int64{2, 2}, []float32{59, 66, 140, 156}},
		{"addmm, 2-D bias", func() (*Tensor, error) {
			return Addmm(ctx, tensorOf(t, ctx, rt, []float32{1, 2, 3, 4}, 2, 2), A(), B())
		}, []int64{2, 2}, []float32{59, 66, 142, 158}},
		{"linear", func() (*Tensor, error) { return Linear(ctx, A(), W(), bias()) }, []int64{2, 2}, []float32{59, 66, 140, 156}},
		{"linear without bias", func() (*Tensor, error) { return Linear(ctx, A(), W(), nil) }, []int64{2, 2}, []float32{58, 64, 139, 154}},
		{"t then contiguous", func() (*Tensor, error) {
			at, _ := T(ctx, A())
			return Contiguous(ctx, at)
		}, []int64{3, 2}, []float32{1, 4, 2, 5, 3, 6}},
		{"add", func() (*Tensor, error) { return Add(ctx, v4(1, 2, 3, 4), v4(10, 20, 30, 40)) }, []int64{4}, []float32{11, 22, 33, 44}},
		{"mul", func() (*Tensor, error) { return Mul(ctx, v4(1, 2, 3, 4), v4(-1, 2, 0.5, 0)) }, []int64{4}, []float32{-1, 4, 1.5, 0}},
		{"relu", func() (*Tensor, error) { return Relu(ctx, v4(-1, 2, -3, 4)) }, []int64{4}, []float32{0, 2, 0, 4}},
		{"sum", func() (*Tensor, error) { return Sum(ctx, A()) }, []int64{}, []float32{21}},
		{"softmax", func() (*Tensor, error) {
			return Softmax(ctx, tensorOf(t, ctx, rt, []float32{1, 2, 3, 3, 2, 1}, 2, 3), -1)
		}, []int64{2, 3}, []float32{float32(sm[0]), float32(sm[1]), float32(sm[2]), float32(sm[2]), float32(sm[1]), float32(sm[0])}},
		{"log_softmax", func() (*Tensor, error) {
			return LogSoftmax(ctx, tensorOf(t, ctx, rt, []float32{1, 2, 3}, 3), 0)
		}, []int64{3}, []float32{float32(1 - lse), float32(2 - lse), float32(3 - lse)}},
		{"nll_loss", func() (*Tensor, error) {
			return NllLoss(ctx, tensorOf(t, ctx, rt, []float32{-1, -2, -3, -4}, 2, 2), tensorOf(t, ctx, rt, []float32{1, 0}, 2))
		}, []int64{}, []float32{2.5}},
		{"cross_entropy", func() (*Tensor, error) {
			return CrossEntropy(ctx, tensorOf(t, ctx, rt, []float32{1, 2, 3, 3, 2, 1}, 2, 3), tensorOf(t, ctx, rt, []float32{2, 2}, 2))
		}, []int64{}, []float32{float32(ce)}},
		{"mse_loss", func() (*Tensor, error) {
			return MseLoss(ctx, tensorOf(t, ctx, rt, []float32{1, 2}, 2), tensorOf(t, ctx, rt, []float32{3, 5}, 2))
		}, []int64{}, []float32{6.5}},
		{"zeros", func() (*Tensor, error) { return Zeros(ctx, rt, 0, 2, 2) }, []int64{2, 2}, []float32{0, 0, 0, 0}},
		{"full", func() (*Tensor, error) { return Full(ctx, rt, 0, 2.5, 3) }, []int64{3}, []float32{2.5, 2.5, 2.5}},
		{"ones_like", func() (*Tensor, error) { return OnesLike(ctx, A()) }, []int64{2, 3}, []float32{1, 1, 1, 1, 1, 1}},
		{"to device 1", func() (*Tensor, error) { return To(ctx, A(), 1) }, []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}},
		{"to device 1 and back", func() (*Tensor, error) {
			x, err := To(ctx, A(), 1)
			require.NoError(t, err)
			y, err := Mm(ctx, x, tensorOf(t, ctx, rt, []float32{1, 0, 0, 1, 1, 1}, 3, 2)) // device 0 tensor
			require.Error(t, err, "devices differ")
			require.Nil(t, y)
			return To(ctx, x, 0)
		}, []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.op()
			require.NoError(t, err)
			assert.Equal(t, tt.shape, out.Shape())
			assertClose(t, tt.want, hostOf(t, ctx, out))
		})
	}
}

func TestMmMatchesHostReference(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx, err := rt.WithDevice(context.Background(), 1)
	require.NoError(t, err)
	const m, k, n = 37, 53, 29
	a, err := Uniform(ctx, rt, 1, -2, 2, 1, m, k)
	require.NoError(t, err)
	b, err := Uniform(ctx, rt, 1, -2, 2, 2, k, n)
	require.NoError(t, err)
	c, err := Mm(ctx, a, b)
	require.NoError(t, err)
	ah, bh := hostOf(t, ctx, a), hostOf(t, ctx, b)
	for _, v := range ah {
		require.True(t, v >= -2 && v < 2)
	}
	assertClose(t, hostMm(ah, bh, m, k, n), hostOf(t, ctx, c))

	again, err := Uniform(ctx, rt, 1, -2, 2, 1, m, k)
	require.NoError(t, err)
	assert.Equal(t, ah, hostOf(t, ctx, again), "same seed, same values")
}

func TestItem(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx := context.Background()
	x := tensorOf(t, ctx, rt, []float32{1, 2, 3}, 3)
	s, err := Sum(ctx, x)
	require.NoError(t, err)
	v, err := s.Item(ctx)
	require.NoError(t, err)
	assert.Equal(t, float32(6), v)
	_, err = x.Item(ctx)
	require.Error(t, err)
}

func TestOpErrors(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx := context.Background()
	m23 := tensorOf(t, ctx, rt, make([]float32, 6), 2, 3)
	m22 := tensorOf(t, ctx, rt, make([]float32, 4), 2, 2)
	v2 := tensorOf(t, ctx, rt, make([]float32, 2), 2)
	ctx1, _ := rt.WithDevice(ctx, 1)
	onDev1 := tensorOf(t, ctx1, rt, make([]float32, 6), 3, 2)
	released := tensorOf(t, ctx, rt, make([]float32, 4), 2, 2)
	released.Release(ctx)
	param := tensorOf(t, ctx, rt, make([]float32, 2), 2).SetRequiresGrad(true)

	tests := []struct {
		name string
		err  error
	}{
		{"mm shapes", func() error { _, err := Mm(ctx, m23, m22); return err }()},
		{"mm 1-D", func() error { _, err := Mm(ctx, v2, m22); return err }()},
		{"mm devices", func() error { _, err := Mm(ctx, m23, onDev1); return err }()},
		{"mm nil", func() error { _, err := Mm(ctx, nil, m22); return err }()},
		{"mm released", func() error { _, err := Mm(ctx, released, m22); return err }()},
		{"t of 1-D", func() error { _, err := T(ctx, v2); return err }()},
		{"addmm bias", func() error { _, err := Addmm(ctx, tensorOf(t, ctx, rt, make([]float32, 3), 3), m22, m22); return err }()},
		{"add shapes", func() error { _, err := Add(ctx, m22, v2); return err }()},
		{"softmax dim 0 of 2-D", func() error { _, err := Softmax(ctx, m23, 0); return err }()},
		{"nll_loss target", func() error { _, err := NllLoss(ctx, m23, m22); return err }()},
		{"from slice count", func() error { _, err := FromSlice(ctx, rt, 0, make([]float32, 3), 2, 2); return err }()},
		{"negative shape", func() error { _, err := Empty(ctx, rt, 0, 2, -1); return err }()},
		{"bad device", func() error { _, err := Empty(ctx, rt, 3, 2); return err }()},
		{"to bad device", func() error { _, err := To(ctx, m22, 7); return err }()},
		{"add_ on a parameter with grad on", AddInPlace(ctx, param, v2, 1)},
		{"add_ on a non-contiguous tensor", func() error {
			x, _ := T(ctx, m23)
			return AddInPlace(NoGrad(ctx), x, tensorOf(t, ctx, rt, make([]float32, 6), 3, 2), 1)
		}()},
		{"backward without grad", func() error { s, _ := Sum(ctx, m22); return s.Backward(ctx) }()},
		{"backward of a non-scalar", func() error { m, _ := Mul(ctx, param, param); return m.Backward(ctx) }()},
	}
	for _, tt := range tests {
		assert.Error(t, tt.err, tt.name)
	}
	require.NoError(t, AddInPlace(NoGrad(ctx), param, v2, 1))
}

func TestBadClassIndexFailsAsynchronously(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx := context.Background()
	logp := tensorOf(t, ctx, rt, []float32{-1, -2, -3, -4}, 2, 2)
	loss, err := NllLoss(ctx, logp, tensorOf(t, ctx, rt, []float32{0, 5}, 2))
	require.NoError(t, err, "the index is checked on the device")
	_, err = loss.Item(ctx)
	require.ErrorIs(t, err, openreg.ErrUnknown)
	assert.Contains(t, err.Error(), "not a class index")
}

func TestGradients(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx := context.Background()
	param := func(data []float32, shape ...int64) *Tensor {
		return tensorOf(t, ctx, rt, data, shape...).SetRequiresGrad(true)
	}
	grad := func(x *Tensor) []float32 {
		require.NotNil(t, x.Grad(), "no gradient")
		return hostOf(t, ctx, x.Grad())
	}

	t.Run("sum of mm", func(t *testing.T) {
		a := param([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
		b := param([]float32{7, 8, 9, 10, 11, 12}, 3, 2)
		c, err := Mm(ctx, a, b)
		require.NoError(t, err)
		assert.Equal(t, "MmBackward0", c.GradFnName())
		s, err := Sum(ctx, c)
		require.NoError(t, err)
		require.NoError(t, s.Backward(ctx))
		assertClose(t, []float32{15, 19, 23, 15, 19, 23}, grad(a)) // row sums of b
		assertClose(t, []float32{5, 5, 7, 7, 9, 9}, grad(b))       // column sums of a
		require.ErrorIs(t, s.Backward(ctx), ErrGraphReleased)
	})

	t.Run("sum of mm of transposed views", func(t *testing.T) {
		a := param([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
		b := param([]float32{1, -1, 2, 0, 3, 1}, 3, 2)
		at, err := T(ctx, a)
		require.NoError(t, err)
		bt, err := T(ctx, b)
		require.NoError(t, err)
		c, err := Mm(ctx, at, b) // aᵀ·b, mat1 column-major
		require.NoError(t, err)
		d, err := Mm(ctx, a, bt) // a·bᵀ, mat2 column-major
		require.NoError(t, err)
		s1, err := Sum(ctx, c)
		require.NoError(t, err)
		s2, err := Sum(ctx, d)
		require.NoError(t, err)
		s, err := Add(ctx, s1, s2)
		require.NoError(t, err)
		require.NoError(t, s.Backward(ctx))
		// d/da Σ aᵀb = b·1 (row sums of b, per column of a); d/da Σ a·bᵀ = 1·b (column sums of b).
		assertClose(t, []float32{0 + 6, 0 + 0, 2 + 6, 2 + 0, 4 + 6, 4 + 0}, grad(a))
		assertClose(t, []float32{3 + 9, 3 + 12, 7 + 9, 7 + 12, 11 + 9, 11 + 12}, grad(b))
		assert.True(t, a.Grad().IsContiguous())
	})

	t.Run("a tensor used twice accumulates", func(t *testing.T) {
		a := param([]float32{1, -2, 3}, 3)
		sq, err := Mul(ctx, a, a)
		require.NoError(t, err)
		s, err := Sum(ctx, sq)
		require.NoError(t, err)
		require.NoError(t, s.Backward(ctx))
		assertClose(t, []float32{2, -4, 6}, grad(a))
		// A second graph adds to the existing gradient.
		s2, err := Sum(ctx, a)
		require.NoError(t, err)
		require.NoError(t, s2.Backward(ctx))
		assertClose(t, []float32{3, -3, 7}, grad(a))
	})

	t.Run("linear, relu and mse", func(t *testing.T) {
		xs := []float32{1, -1, 2, 0.5, 3, -2}           // [2,3]
		ws := []float32{0.1, -0.2, 0.3, -0.4, 0.5, 0.6} // [2,3]
		bs := []float32{0.05, -0.5}
		ts := []float32{1, 0, -1, 2}
		x := tensorOf(t, ctx, rt, xs, 2, 3)
		w, b := param(ws, 2, 3), param(bs, 2)
		h, err := Linear(ctx, x, w, b)
		require.NoError(t, err)
		y, err := Relu(ctx, h)
		require.NoError(t, err)
		loss, err := MseLoss(ctx, y, tensorOf(t, ctx, rt, ts, 2, 2))
		require.NoError(t, err)
		require.NoError(t, loss.Backward(ctx))
		// Host reference.
		var dw [6]float64
		var db [2]float64
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				hv := float64(bs[j])
				for k := 0; k < 3; k++ {
					hv += float64(xs[i*3+k]) * float64(ws[j*3+k])
				}
				if hv <= 0 {
					continue
				}
				dy := 2 * (hv - float64(ts[i*2+j])) / 4
				db[j] += dy
				for k := 0; k < 3; k++ {
					dw[j*3+k] += dy * float64(xs[i*3+k])
				}
			}
		}
		want := func(v []float64) []float32 {
			out := make([]float32, len(v))
			for i := range v {
				out[i] = float32(v[i])
			}
			return out
		}
		assertClose(t, want(dw[:]), grad(w))
		assertClose(t, want(db[:]), grad(b))
		assert.Nil(t, x.Grad(), "inputs that need no grad get none")
		assert.True(t, w.Grad().IsContiguous(), "a weight used through aten::t gets a contiguous gradient")
	})

	t.Run("cross entropy", func(t *testing.T) {
		logits := param([]float32{1, 2, 3, 0, 0, 1}, 2, 3)
		loss, err := CrossEntropy(ctx, logits, tensorOf(t, ctx, rt, []float32{0, 2}, 2))
		require.NoError(t, err)
		require.NoError(t, loss.Backward(ctx))
		var want []float32
		for i, row := range [][]float64{{1, 2, 3}, {0, 0, 1}} {
			p := hostSoftmax(row)
			for j := range p {
				if j == []int{0, 2}[i] {
					p[j]--
				}
				want = append(want, float32(p[j]/2))
			}
		}
		assertClose(t, want, grad(logits))
	})

	t.Run("softmax", func(t *testing.T) {
		x := param([]float32{0.5, -1, 2}, 3)
		c := []float32{1, 2, 3}
		s, err := Softmax(ctx, x, 0)
		require.NoError(t, err)
		m, err := Mul(ctx, s, tensorOf(t, ctx, rt, c, 3))
		require.NoError(t, err)
		loss, err := Sum(ctx, m)
		require.NoError(t, err)
		require.NoError(t, loss.Backward(ctx))
		p := hostSoftmax([]float64{0.5, -1, 2})
		dot := p[0]*1 + p[1]*2 + p[2]*3
		want := []float32{float32(p[0] * (1 - dot)), float32(p[1] * (2 - dot)), float32(p[2] * (3 - dot))}
		assertClose(t, want, grad(x))
	})

	t.Run("through another device", func(t *testing.T) {
		x := param([]float32{1, 2}, 2)
		y, err := To(ctx, x, 1)
		require.NoError(t, err)
		assert.Equal(t, "ToCopyBackward0", y.GradFnName())
		z, err := Add(ctx, y, y)
		require.NoError(t, err)
		s, err := Sum(ctx, z)
		require.NoError(t, err)
		require.NoError(t, s.Backward(ctx))
		assert.Equal(t, 0, x.Grad().Device())
		assertClose(t, []float32{2, 2}, grad(x))
	})

	t.Run("no grad", func(t *testing.T) {
		a := param([]float32{1, 2}, 2)
		out, err := Mul(NoGrad(ctx), a, a)
		require.NoError(t, err)
		assert.False(t, out.RequiresGrad())
		assert.True(t, out.IsLeaf())
		assert.False(t, GradEnabled(NoGrad(ctx)))
		assert.True(t, GradEnabled(ctx))
	})
}

func TestSGDStep(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	ctx := context.Background()
	p := tensorOf(t, ctx, rt, []float32{1, 2, 3}, 3).SetRequiresGrad(true)
	untouched := tensorOf(t, ctx, rt, []float32{5}, 1).SetRequiresGrad(true)
	loss, err := Sum(ctx, p)
	require.NoError(t, err)
	require.NoError(t, loss.Backward(ctx))
	opt := &SGD{Params: []*Tensor{p, untouched}, LR: 0.5}
	require.NoError(t, opt.Step(ctx))
	assertClose(t, []float32{0.5, 1.5, 2.5}, hostOf(t, ctx, p))
	assertClose(t, []float32{5}, hostOf(t, ctx, untouched))
	opt.ZeroGrad(ctx)
	assert.Nil(t, p.Grad())
}

func TestWorkloads(t *testing.T) {
	names := []string{}
	for _, w := range Workloads() {
		names = append(names, w.Name)
		assert.NotEmpty(t, w.Description)
	}
	assert.Equal(t, []string{"mlp", "multistream"}, names)
	_, ok := LookupWorkload("nope")
	assert.False(t, ok)

	t.Run("mlp learns and frees its memory", func(t *testing.T) {
		rt := newRuntime(t, openreg.Options{})
		losses, err := runMLP(context.Background(), rt, mlpDefault)
		require.NoError(t, err)
		require.Len(t, losses, mlpDefault.iters)
		assert.Less(t, losses[len(losses)-1], losses[0], "losses %v", losses)
		again, err := runMLP(context.Background(), newRuntime(t, openreg.Options{}), mlpDefault)
		require.NoError(t, err)
		assert.Equal(t, losses, again, "deterministic")
		st, _ := rt.MemoryStats(0)
		assert.Zero(t, st.Allocated)
		assert.Positive(t, st.Peak)
	})

	t.Run("multistream joins its streams", func(t *testing.T) {
		rt := newRuntime(t, openreg.Options{})
		ctx := context.Background()
		sums, err := multistream(ctx, rt, 3)
		require.NoError(t, err)
		// Host reference: a·b + relu(b·a) + a·a.
		a, err := Uniform(ctx, rt, 0, -1, 1, 21, 48, 48)
		require.NoError(t, err)
		b, err := Uniform(ctx, rt, 0, -1, 1, 22, 48, 48)
		require.NoError(t, err)
		ah, bh := hostOf(t, ctx, a), hostOf(t, ctx, b)
		ab, ba, aa := hostMm(ah, bh, 48, 48, 48), hostMm(bh, ah, 48, 48, 48), hostMm(ah, ah, 48, 48, 48)
		var want float64
		for i := range ab {
			want += float64(ab[i]) + math.Max(0, float64(ba[i])) + float64(aa[i])
		}
		for _, s := range sums {
			assert.InDelta(t, want, float64(s), 1e-3*math.Max(1, math.Abs(want)))
		}
		for d := 0; d < 2; d++ {
			c, _ := rt.Counters(d)
			assert.Positive(t, c.Kernels, "device %d ran kernels", d)
		}
		one := newRuntime(t, openreg.Options{Devices: 1})
		_, err = multistream(ctx, one, 1)
		require.NoError(t, err, "a one-device runtime works too")
	})
}
