package timeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/internal/sniff"
	"github.com/orprof/orprof/trace/tracefile"

	"github.com/orprof/orprof/internal/fanout"
)

// ReadOptions say how ReadInputs and ReadStream read their inputs, beside the analyses'
// Options. The zero value reads as ReadAll does.
type ReadOptions struct {
	// Link selects the rules that charge device time to operators in the traces read
	// (tracefile.Options.Link); a summary's were applied when it was written.
	Link tracefile.LinkMode
	// Workers is the number of inputs read at once; 0 means GOMAXPROCS.
	Workers int
	// Rules class the traces' device work (nil: kernels.Default); a summary's was classed when
	// it was written.
	Rules *kernels.Rules
	// Embedded, when set, reads an input that holds a timeline summary as a member of a
	// document of another kind (a report summary: package report, which imports this
	// one, has the reader). It is handed the input's start (plain or gzip, the first 64 KiB
	// at least buffered) before anything else looks at it: when the input is such a document
	// it reads it and returns its timeline summary, or an error naming name (one without the
	// member among them), with ok true; otherwise ok false, and it has consumed nothing. The
	// summary it returns is then taken as one Write wrote is (its options checked, its
	// rank-less ranks numbered as MergeAll numbers them).
	Embedded func(br *bufio.Reader, name string) (s *Summary, ok bool, err error)
}

// sniffBytes is how much of an input is buffered for Embedded to look at: enough compressed
// bytes for a gzip member's header and the block that holds a document's first key.
const sniffBytes = 64 << 10

// ReadAll reads the inputs at paths, workers at a time (0: GOMAXPROCS): each a trace (read in
// one pass, OpenTrace) or a summary Write wrote as json (Load), a rank whose trace names none
// being numbered by its position among all the ranks of the inputs (MergeAll). The summaries
// are merged in path order, so the result does not depend on the order the reads finish in.
// It returns the inputs' warnings in path order and the first error in path order.
func ReadAll(paths []string, o Options, workers int) (*Summary, []string, error) {
	return ReadInputs(paths, o, ReadOptions{Workers: workers})
}

// ReadInputs is ReadAll with the ReadOptions ro: the traces read with ro.Link, and the
// documents ro.Embedded reads taken as summaries among the others.
func ReadInputs(paths []string, o Options, ro ReadOptions) (*Summary, []string, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	sums := make([]*Summary, len(paths))
	warns := make([][]string, len(paths))
	errs := fanout.Each(len(paths), ro.Workers, func(k int) (err error) {
		sums[k], warns[k], err = openInput(paths[k], o, ro, k)
		return err
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	all := slices.Concat(warns...)
	if len(sums) == 0 {
		return nil, nil, fmt.Errorf("no input")
	}
	s := sums[0]
	// One derivation of the cross-rank figures for all the inputs, not one per input.
	if err := s.MergeAll(sums[1:]...); err != nil {
		k := 0
		if me, ok := err.(*MergeError); ok {
			k = me.Index
		}
		return nil, nil, fmt.Errorf("%s: %v", paths[k+1], err)
	}
	if !s.Options.sameThresholds(o) {
		return nil, nil, fmt.Errorf("%s: %w (its options: %+v)", paths[0], ErrOtherOptions, s.Options)
	}
	return s, all, nil
}

// openInput reads one input: a timeline summary, a document holding one (ro.Embedded) or a
// trace.
func openInput(path string, o Options, ro ReadOptions, pos int) (*Summary, []string, error) {
	if path != "-" && ro.Embedded != nil {
		s, ok, err := openEmbedded(path, ro.Embedded)
		if ok {
			if err != nil {
				return nil, nil, err
			}
			return s, nil, nil
		}
	}
	if path != "-" && isSummary(path) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		var r io.Reader = bufio.NewReader(f)
		if gz, err := gzip.NewReader(r); err == nil {
			r = gz
		} else if _, err := f.Seek(0, io.SeekStart); err == nil {
			r = bufio.NewReader(f)
		}
		s, err := Load(r)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		return s, nil, nil
	}
	return openTrace(path, o, pos, ro.Link, ro.Rules)
}

// openEmbedded is embedded of the file at path.
func openEmbedded(path string, embedded func(*bufio.Reader, string) (*Summary, bool, error)) (*Summary, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil // not one: the trace reader names the error
	}
	defer f.Close()
	return embedded(bufio.NewReaderSize(f, sniffBytes), path)
}

// ErrOtherOptions is ReadAll's error for summaries made with other thresholds or steps than
// the Options asked for: their analyses ran when they were written.
var ErrOtherOptions = errors.New("a summary made with other thresholds or steps than asked")

// IsSummaryFile reports whether the file at path (plain or gzip) is a summary Write wrote as
// json, not a trace.
func IsSummaryFile(path string) bool { return path != "-" && isSummary(path) }

// summaryMark starts every document Write writes as json.
var summaryMark = []byte(`{` + "\n" + `  "orprof_timeline":`)

// isSummary reports whether the file at path (plain or gzip) starts as a timeline summary.
func isSummary(path string) bool {
	head, err := sniff.FileHead(path, len(summaryMark))
	return err == nil && IsSummary(head)
}

// IsSummary reports whether an input whose first bytes (plain, after any gzip layer) are
// head is a summary Write wrote as json.
func IsSummary(head []byte) bool { return bytes.HasPrefix(head, summaryMark) }

// SelectRanks keeps the ranks listed (by Rank) and derives the cross-rank figures again; it
// names a listed rank that no input has.
func (s *Summary) SelectRanks(ranks []int64) error {
	if len(ranks) == 0 {
		return nil
	}
	for _, r := range ranks {
		if !slices.ContainsFunc(s.Ranks, func(i RankInfo) bool { return i.Rank == r }) {
			return fmt.Errorf("no rank %d in the inputs", r)
		}
	}
	keep := func(r int64) bool { return slices.Contains(ranks, r) }
	s.Ranks = slices.DeleteFunc(s.Ranks, func(x RankInfo) bool { return !keep(x.Rank) })
	s.Breakdown = slices.DeleteFunc(s.Breakdown, func(x RankBreakdown) bool { return !keep(x.Rank) })
	s.Idle = slices.DeleteFunc(s.Idle, func(x StreamIdle) bool { return !keep(x.Rank) })
	s.Overlap = slices.DeleteFunc(s.Overlap, func(x Overlap) bool { return !keep(x.Rank) })
	s.Launches = slices.DeleteFunc(s.Launches, func(x Launches) bool { return !keep(x.Rank) })
	s.Queue = slices.DeleteFunc(s.Queue, func(x StreamQueue) bool { return !keep(x.Rank) })
	s.Steps = slices.DeleteFunc(s.Steps, func(x RankSteps) bool { return !keep(x.Rank) })
	s.Stragglers.Collectives = slices.DeleteFunc(s.Stragglers.Collectives, func(x RankCollectives) bool { return !keep(x.Rank) })
	s.derive()
	return nil
}
