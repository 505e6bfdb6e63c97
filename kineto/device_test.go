package kineto

import "testing"

type namedProfiler struct{ name string }

func (p *namedProfiler) Name() string                     { return p.name }
func (p *namedProfiler) AvailableActivities() ActivitySet { return NewActivitySet(ConcurrentKernel) }
func (p *namedProfiler) Configure(ActivitySet, *Config) (ActivityProfilerSession, error) {
	return nil, nil
}

func TestDeviceProfilerRegistry(t *testing.T) {
	if DeviceProfiler("testdev") != nil {
		t.Fatal("a profiler before registration")
	}
	made := 0
	RegisterDeviceProfiler("TestDev", func() ActivityProfiler { made++; return &namedProfiler{"a"} })
	p := DeviceProfiler("testdev")
	if p == nil || p.Name() != "a" || DeviceProfiler("TESTDEV") != p || made != 1 {
		t.Fatalf("got %v after %d calls of the factory; want one profiler a, made once, found case-insensitively", p, made)
	}
	RegisterDeviceProfiler("testdev", func() ActivityProfiler { return &namedProfiler{"b"} })
	if p := DeviceProfiler("testdev"); p == nil || p.Name() != "b" {
		t.Fatalf("last writer does not win: %v", p)
	}
	RegisterDeviceProfiler("testdev", func() ActivityProfiler { panic("boom") })
	if p := DeviceProfiler("testdev"); p != nil {
		t.Fatalf("a panicking factory gave %v", p)
	}
	RegisterDeviceProfiler("testdev", nil)
	if DeviceProfiler("testdev") != nil {
		t.Fatal("a profiler after removal")
	}
}
