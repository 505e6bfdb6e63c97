package opencl

import (
	"context"
	"math"
	"testing"
)

// referenceMLP trains the MLP on the host in float64 from the same initial values: the Go
// reference for the OpenCL kernels.
func referenceMLP(c MLPConfig) MLPResult {
	B, In, H, C := int(c.Batch), int(c.In), int(c.Hidden), int(c.Classes)
	f64 := func(v []float32) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	k1, k2 := float32(1/math.Sqrt(float64(In))), float32(1/math.Sqrt(float64(H)))
	x := f64(uniformValues(int64(B*In), -1, 1, seedInput))
	w1 := f64(uniformValues(int64(H*In), -k1, k1, seedLayer1))
	b1 := f64(uniformValues(int64(H), -k1, k1, seedLayer1+1))
	w2 := f64(uniformValues(int64(C*H), -k2, k2, seedLayer2))
	b2 := f64(uniformValues(int64(C), -k2, k2, seedLayer2+1))
	y := labelsFor(c)
	var res MLPResult
	lr := float64(c.LR)
	for range c.Steps {
		a := make([]float64, B*H)
		for b := 0; b < B; b++ {
			for j := 0; j < H; j++ {
				s := b1[j]
				for i := 0; i < In; i++ {
					s += x[b*In+i] * w1[j*In+i]
				}
				a[b*H+j] = math.Max(s, 0)
			}
		}
		gz := make([]float64, B*C)
		loss := 0.0
		for b := 0; b < B; b++ {
			z := make([]float64, C)
			mx := math.Inf(-1)
			for k := 0; k < C; k++ {
				s := b2[k]
				for j := 0; j < H; j++ {
					s += a[b*H+j] * w2[k*H+j]
				}
				z[k] = s
				mx = math.Max(mx, s)
			}
			sum := 0.0
			for k := range z {
				sum += math.Exp(z[k] - mx)
			}
			for k := range z {
				lp := z[k] - mx - math.Log(sum)
				gz[b*C+k] = math.Exp(lp) / float64(B)
				if k == int(y[b]) {
					loss -= lp / float64(B)
					gz[b*C+k] -= 1 / float64(B)
				}
			}
		}
		res.Losses = append(res.Losses, float32(loss))
		gw2, gb2 := make([]float64, C*H), make([]float64, C)
		gh := make([]float64, B*H)
		for b := 0; b < B; b++ {
			for k := 0; k < C; k++ {
				g := gz[b*C+k]
				gb2[k] += g
				for j := 0; j < H; j++ {
					gw2[k*H+j] += g * a[b*H+j]
					gh[b*H+j] += g * w2[k*H+j]
				}
			}
		}
		gw1, gb1 := make([]float64, H*In), make([]float64, H)
		for b := 0; b < B; b++ {
			for j := 0; j < H; j++ {
				if a[b*H+j] <= 0 {
					continue
				}
				g := gh[b*H+j]
				gb1[j] += g
				for i := 0; i < In; i++ {
					gw1[j*In+i] += g * x[b*In+i]
				}
			}
		}
		for _, p := range []struct{ v, g []float64 }{{w1, gw1}, {b1, gb1}, {w2, gw2}, {b2, gb2}} {
			for i := range p.v {
				p.v[i] -= lr * p.g[i]
			}
		}
	}
	f32 := func(v []float64) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	res.W1, res.B1, res.W2, res.B2 = f32(w1), f32(b1), f32(w2), f32(b2)
	return res
}

func TestTrainMLPMatchesReference(t *testing.T) {
	rt := needOpenCL(t)
	for _, c := range []MLPConfig{DefaultMLP, {Batch: 5, In: 3, Hidden: 7, Classes: 4, Steps: 3, LR: 0.1}} {
		got, err := TrainMLP(context.Background(), rt, c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		want := referenceMLP(c)
		const tol = 2e-4
		for _, v := range []struct {
			name      string
			got, want []float32
		}{{"losses", got.Losses, want.Losses}, {"w1", got.W1, want.W1}, {"b1", got.B1, want.B1},
			{"w2", got.W2, want.W2}, {"b2", got.B2, want.B2}} {
			if len(v.got) != len(v.want) {
				t.Fatalf("%+v: %s: %d values, want %d", c, v.name, len(v.got), len(v.want))
			}
			for i := range v.got {
				if d := math.Abs(float64(v.got[i] - v.want[i])); d > tol*(1+math.Abs(float64(v.want[i]))) {
					t.Fatalf("%+v: %s[%d] = %g, reference %g (|Δ| %g)", c, v.name, i, v.got[i], v.want[i], d)
				}
			}
		}
		if c == DefaultMLP && !(got.Losses[len(got.Losses)-1] < got.Losses[0]) {
			t.Errorf("losses %v do not decrease", got.Losses)
		}
	}
}
