package opencl

import (
	"math"
	"testing"
)

// synth makes samples of a device clock running at host = offset + d·(1+ppm/1e6), each
// bracketed by width ns placed so the true instant is frac of the way into the bracket.
func synth(offset int64, ppm float64, width int64, frac float64, devs ...int64) []ClockSample {
	var out []ClockSample
	for _, d := range devs {
		h := offset + int64(math.Round(float64(d)*(1+ppm/1e6)))
		before := h - int64(frac*float64(width))
		out = append(out, ClockSample{HostBeforeNs: before, DeviceNs: d, HostAfterNs: before + width})
	}
	return out
}

func TestFitClock(t *testing.T) {
	const off = 1_700_000_000_000_000_000
	cases := []struct {
		name      string
		samples   []ClockSample
		wantSlope float64 // 0: do not check
		maxErrNs  int64   // |fit − truth| at every sample's device instant
	}{
		{"exact pairs over 10 s", synth(off, 25, 0, 0, 0, 5e9, 10e9), 1 + 25e-6, 1},
		{"centred brackets, 10 µs wide", synth(off, -40, 10_000, 0.5, 0, 2e9, 4e9, 6e9, 8e9, 10e9), 1 - 40e-6, 1},
		{"one sample: offset only", synth(off, 0, 2_000, 0.5, 3e9), 1, 1},
		{"short span: slope 1", synth(off, 30, 0, 0, 0, 1e8), 1, 3_001},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cal := FitClock(c.samples)
			if c.wantSlope != 0 && math.Abs(cal.Slope-c.wantSlope) > 1e-9 {
				t.Errorf("slope %.9f, want %.9f", cal.Slope, c.wantSlope)
			}
			for _, s := range c.samples {
				truth := s.HostBeforeNs + (s.HostAfterNs-s.HostBeforeNs)/2
				if c.samples[0].WidthNs() == 0 {
					truth = s.HostBeforeNs
				}
				if d := cal.HostNs(s.DeviceNs) - truth; d > c.maxErrNs || d < -c.maxErrNs {
					t.Errorf("device %d maps %d ns from the truth", s.DeviceNs, d)
				}
				if cal.HostNs(s.DeviceNs) < s.HostBeforeNs {
					t.Errorf("device %d maps before its host bracket", s.DeviceNs)
				}
			}
			if cal.Samples != len(c.samples) {
				t.Errorf("Samples = %d", cal.Samples)
			}
		})
	}
}

// TestFitClockNeverEarly: the fit is shifted later so no sample's device instant maps before
// its host bracket; the residual reports samples the fit cannot agree with, the spread the
// distance from the midpoints.
func TestFitClockNeverEarly(t *testing.T) {
	cases := []struct {
		name         string
		samples      []ClockSample
		wantResidual bool
	}{
		{"consistent", []ClockSample{{1000, 0, 1100}, {1140, 100, 1200}}, false},
		{"contradictory", []ClockSample{{1000, 0, 1010}, {1200, 100, 1210}}, true},
	}
	for _, c := range cases {
		cal := FitClock(c.samples)
		for _, x := range c.samples {
			if cal.HostNs(x.DeviceNs) < x.HostBeforeNs {
				t.Errorf("%s: device %d maps to %d, before %d", c.name, x.DeviceNs, cal.HostNs(x.DeviceNs), x.HostBeforeNs)
			}
		}
		if (cal.ResidualNs > 0) != c.wantResidual || cal.SpreadNs <= 0 || cal.WidestNs < cal.WidthNs {
			t.Errorf("%s: residual %d, spread %d", c.name, cal.ResidualNs, cal.SpreadNs)
		}
	}
}

func TestPlaceWork(t *testing.T) {
	cals := []Calibration{{DeviceRefNs: 0, HostRefNs: 1000, Slope: 1}}
	launches := []Activity{{ID: 1, StartNs: 1500}, {ID: 2, StartNs: 1510}, {ID: 3, StartNs: 3000}}
	work := []Activity{
		{ID: 1, DeviceStartNs: 400, DeviceEndNs: 600},   // maps to 1400: before its launch at 1500
		{ID: 2, DeviceStartNs: 650, DeviceEndNs: 700},   // 1650 < previous end once that moved to 1700
		{ID: 3, DeviceStartNs: 2100, DeviceEndNs: 2200}, // 3100: fine
	}
	moved := placeWork(work, launches, cals)
	want := [][2]int64{{1500, 1700}, {1700, 1750}, {3100, 3200}}
	for i, w := range want {
		if work[i].StartNs != w[0] || work[i].EndNs != w[1] {
			t.Errorf("work %d at [%d, %d], want %v", work[i].ID, work[i].StartNs, work[i].EndNs, w)
		}
	}
	if moved[0] != 2 {
		t.Errorf("moved %d, want 2", moved[0])
	}
}
