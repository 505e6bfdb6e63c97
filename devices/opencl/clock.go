package opencl

import (
	"fmt"
	"math"
	"sort"
	"unsafe"
)

// ClockSample is one host/device clock pair: the host clock read just before and just after
// the clEnqueueMarkerWithWaitList call that enqueued a marker on an idle calibration queue, and
// the marker's CL_PROFILING_COMMAND_QUEUED — the device clock read during that call. The device
// instant lies between the two host readings, a bracket of about one enqueue call.
type ClockSample struct {
	HostBeforeNs, DeviceNs, HostAfterNs int64
}

// WidthNs is the uncertainty of the pair: HostAfterNs − HostBeforeNs.
func (s ClockSample) WidthNs() int64 { return s.HostAfterNs - s.HostBeforeNs }

// MidNs is the host instant the pair estimates for DeviceNs.
func (s ClockSample) MidNs() int64 { return s.HostBeforeNs + s.WidthNs()/2 }

// calibrationQueue returns d's private queue for clock samples, so samples never wait behind
// the workload's commands.
func (rt *Runtime) calibrationQueue(d *Device) (*Stream, error) {
	d.mu.Lock()
	q := d.calib
	d.mu.Unlock()
	if q != nil {
		return q, nil
	}
	s, err := rt.newQueue(d)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calib != nil {
		rt.cl.call(rt.cl.releaseQueue, s.queue)
		return d.calib, nil
	}
	d.calib = s
	return s, nil
}

// SampleClock takes n clock samples on device d and returns the narrowest (the best bound on
// where the device instant sits on the host clock). When even that is more than 4× as wide as
// the narrowest sample the device ever gave (the runtime's worker was busy), it tries again,
// up to 5 times in all. It blocks for the markers to complete.
func (rt *Runtime) SampleClock(d, n int) (ClockSample, error) {
	dev, err := rt.Device(d)
	if err != nil {
		return ClockSample{}, err
	}
	var best ClockSample
	for try := 0; try < 5; try++ {
		cs, err := rt.sampleBatch(dev, n)
		if err != nil {
			return ClockSample{}, err
		}
		if try == 0 || cs.WidthNs() < best.WidthNs() {
			best = cs
		}
		dev.mu.Lock()
		if dev.minWidth == 0 || best.WidthNs() < dev.minWidth {
			dev.minWidth = max(best.WidthNs(), 1)
		}
		ok := best.WidthNs() <= 4*dev.minWidth
		dev.mu.Unlock()
		if ok {
			break
		}
	}
	return best, nil
}

// sampleBatch enqueues n markers on dev's calibration queue and returns the narrowest sample.
func (rt *Runtime) sampleBatch(dev *Device, n int) (ClockSample, error) {
	q, err := rt.calibrationQueue(dev)
	if err != nil {
		return ClockSample{}, err
	}
	l := rt.cl
	// Enqueue the markers back to back, each bracketed, and read them once all completed: an
	// enqueue right after the previous marker completed can wait tens of µs on the runtime's
	// worker (pocl), one behind a pending marker does not.
	n = max(n, 1)
	evs := make([]uintptr, n)
	samples := make([]ClockSample, n)
	defer func() {
		for _, ev := range evs {
			if ev != 0 {
				l.call(l.releaseEvent, ev)
			}
		}
	}()
	for i := range evs {
		h0 := rt.clock.Now()
		code := l.call(l.enqueueMarker, q.queue, 0, 0, uintptr(unsafe.Pointer(&evs[i])))
		h1 := rt.clock.Now()
		if err := check("clEnqueueMarkerWithWaitList", code); err != nil {
			evs[i] = 0
			return ClockSample{}, err
		}
		samples[i] = ClockSample{HostBeforeNs: h0, HostAfterNs: h1}
	}
	if err := check("clFinish", l.call(l.finish, q.queue)); err != nil {
		return ClockSample{}, err
	}
	var best ClockSample
	for i, ev := range evs {
		dn, err := l.profilingNs(ev, clProfilingCommandQueued)
		if err != nil {
			return ClockSample{}, err
		}
		samples[i].DeviceNs = dn
		if i == 0 || samples[i].WidthNs() < best.WidthNs() {
			best = samples[i]
		}
	}
	return best, nil
}

// Calibration maps one device's timestamps to the host clock:
// host = HostRefNs + (device − DeviceRefNs)·Slope. It is fitted to clock samples (FitClock):
// the slope carries the drift between the two clocks (pocl's CLOCK_MONOTONIC_RAW against the
// host's NTP-slewed clock).
type Calibration struct {
	DeviceRefNs, HostRefNs int64
	Slope                  float64
	// Samples is the number of samples fitted.
	Samples int
	// ResidualNs is the largest distance by which the fitted host time of a sample's device
	// instant falls outside that sample's bracket [HostBeforeNs, HostAfterNs]: 0 when the fit
	// agrees with every sample.
	ResidualNs int64
	// SpreadNs is the largest distance between the fitted host time of a tight sample's device
	// instant and the sample's midpoint, tight meaning at most 4× as wide as the narrowest
	// sample (samples taken while the device was busy can be 100× wider and weigh ~nothing).
	SpreadNs int64
	// WidthNs is the median width of the samples fitted and WidestNs the largest: each sample
	// only says the instant lies within its width.
	WidthNs, WidestNs int64
}

// DriftPPM is the slope's departure from 1 in parts per million.
func (c Calibration) DriftPPM() float64 { return (c.Slope - 1) * 1e6 }

// HostNs maps a device timestamp to the host clock.
func (c Calibration) HostNs(device int64) int64 {
	return c.HostRefNs + int64(math.Round(float64(device-c.DeviceRefNs)*c.Slope))
}

// String summarises the fit.
func (c Calibration) String() string {
	return fmt.Sprintf("offset %d ns, drift %.3f ppm, residual %.3f µs, spread %.3f µs over %d samples (median width %.3f µs, widest %.3f µs)",
		c.HostRefNs-c.DeviceRefNs, c.DriftPPM(), float64(c.ResidualNs)/1000, float64(c.SpreadNs)/1000, c.Samples,
		float64(c.WidthNs)/1000, float64(c.WidestNs)/1000)
}

// minDriftSpanNs is the shortest span of samples from which FitClock estimates drift: over
// less, the samples' widths (microseconds) swamp any drift (parts per million), and slope 1
// is the better estimate.
const minDriftSpanNs = int64(1e9)

// FitClock fits a Calibration to samples: a least-squares line through the samples' midpoints,
// each weighted by the inverse square of its width, then shifted later just enough that no
// sample's device instant maps before its HostBeforeNs (work is never placed before the host
// call that caused it). Samples spanning less than a second of device time give slope 1
// (an offset only).
func FitClock(samples []ClockSample) Calibration {
	if len(samples) == 0 {
		return Calibration{Slope: 1}
	}
	ss := append([]ClockSample(nil), samples...)
	sort.Slice(ss, func(i, j int) bool { return ss[i].DeviceNs < ss[j].DeviceNs })
	ref := ss[0]
	var sw, sx, sy float64
	w := make([]float64, len(ss))
	for i, s := range ss {
		wd := float64(max(s.WidthNs(), 1))
		w[i] = 1 / (wd * wd)
		sw += w[i]
		sx += w[i] * float64(s.DeviceNs-ref.DeviceNs)
		sy += w[i] * float64(s.MidNs()-ref.MidNs())
	}
	mx, my := sx/sw, sy/sw
	var sxx, sxy float64
	for i, s := range ss {
		dx := float64(s.DeviceNs-ref.DeviceNs) - mx
		dy := float64(s.MidNs()-ref.MidNs()) - my
		sxx += w[i] * dx * dx
		sxy += w[i] * dx * dy
	}
	slope := 1.0
	if span := ss[len(ss)-1].DeviceNs - ref.DeviceNs; sxx > 0 && span >= minDriftSpanNs {
		slope = sxy / sxx
	}
	c := Calibration{DeviceRefNs: ref.DeviceNs, Slope: slope, Samples: len(ss)}
	c.HostRefNs = ref.MidNs() + int64(math.Round(my-slope*mx))
	var shift int64
	widths := make([]int64, len(ss))
	for i, s := range ss {
		shift = max(shift, s.HostBeforeNs-c.HostNs(s.DeviceNs))
		widths[i] = s.WidthNs()
	}
	c.HostRefNs += shift
	sort.Slice(widths, func(i, j int) bool { return widths[i] < widths[j] })
	c.WidthNs, c.WidestNs = widths[len(widths)/2], widths[len(widths)-1]
	var tight []ClockSample
	for _, s := range ss {
		if s.WidthNs() <= 4*max(widths[0], 1) {
			tight = append(tight, s)
		}
	}
	c.ResidualNs, _ = c.Residual(ss)
	_, c.SpreadNs = c.Residual(tight)
	return c
}

// Residual measures the fit against samples (for instance ones not used in the fit): the
// largest distance by which a sample's fitted instant falls outside its bracket, and the
// largest distance from a bracket's midpoint.
func (c Calibration) Residual(samples []ClockSample) (outside, spread int64) {
	for _, s := range samples {
		h := c.HostNs(s.DeviceNs)
		outside = max(outside, s.HostBeforeNs-h, h-s.HostAfterNs)
		d := h - s.MidNs()
		spread = max(spread, d, -d)
	}
	return outside, spread
}
