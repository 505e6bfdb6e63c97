package timeline

import (
	"github.com/orprof/orprof/text"

	"bytes"
	"strings"
	"testing"
)

// TestPartialSummary: a summary written with some views holds those alone. The others print
// as not in it, never as an empty table ("(none)" read as no idle gaps, no launches); a
// merge holds the views every input holds; the findings need every view they derive from.
func TestPartialSummary(t *testing.T) {
	evs := []Event{step(1, 0, 50), launch(1, 10, 11), kern(7, 20, 40, 1, "a"), launch(2, 12, 13), kern(7, 60, 70, 2, "b")}
	write := func(s *Summary, views []string) *Summary {
		t.Helper()
		var b bytes.Buffer
		if err := Write(&b, text.JSON, s, views); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSummary(&b)
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	full := write(run(t, DefaultOptions(), 0, evs...), Views)
	part := write(run(t, DefaultOptions(), 1, evs...), []string{"breakdown", "findings"})
	if full.Held != nil {
		t.Errorf("a full summary holds %v, want every view (nil)", full.Held)
	}
	if want := []string{"breakdown"}; strings.Join(part.Held, ",") != strings.Join(want, ",") {
		t.Errorf("written with breakdown,findings: holds %v, want %v (the findings derive from views it lacks)", part.Held, want)
	}
	var out bytes.Buffer
	if err := Write(&out, text.Text, part, []string{"breakdown", "idle", "launches"}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"Time breakdown per rank", "idle: not in this summary (it was written with --view breakdown)",
		"launches: not in this summary (it was written with --view breakdown)"} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "(none)") {
		t.Errorf("a view not held prints as an empty table:\n%s", got)
	}
	if err := full.MergeAll(part); err != nil {
		t.Fatal(err)
	}
	if strings.Join(full.Held, ",") != "breakdown" || !full.Holds("breakdown") || full.Holds("idle") {
		t.Errorf("merged: holds %v, want breakdown", full.Held)
	}
	// Its json lists the views it holds, whatever was asked.
	again := write(full, Views)
	if strings.Join(again.Held, ",") != "breakdown" || len(again.Breakdown) != 2 {
		t.Errorf("rewritten: holds %v, %d ranks", again.Held, len(again.Breakdown))
	}
	if _, err := ReadSummary(strings.NewReader(`{"orprof_timeline": 1, "options": {"micro_idle_ns":30000,"short_kernel_ns":10000,"queue_length":16}, "views": ["bogus"]}`)); err == nil ||
		!strings.Contains(err.Error(), `views: no view "bogus"`) {
		t.Errorf("an unknown view: %v", err)
	}
}
