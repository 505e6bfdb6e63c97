package perfetto

import (
	"bytes"
	"github.com/orprof/orprof/trace"
	"io"
	"math"
	"strconv"

	"github.com/orprof/orprof/internal/jsonscan"
)

// event is one trace event as read. The byte slices are views valid during the callback
// only; pid and tid are the raw JSON tokens (a number, or a string with its quotes).
type event struct {
	ph        byte
	name, cat []byte
	pid, tid  []byte
	ts, dur   int64 // ns on the file's clock (ts × 1000)
	hasDur    bool
	id        []byte // a flow's id, raw
	bp        byte   // a flow end's binding point ('e' for the enclosing slice)
	scope     byte   // an instant's scope
	args      []byte // the raw args object, nil when absent
	encArgs   []byte // or, when the reader's encodeArgs took them, what it made of them
	hasEnc    bool
	extra     []byte // the other members, raw, each `"key": value` and ", " between

	// Set by a worker (parallel.go): the payload it encoded, and a metadata event's value.
	pay     payload
	hasPay  bool
	hasMeta bool
	meta    uint8 // metaNone, metaStr or metaInt
	metaStr []byte
	metaNum int64
}

// header is what a trace holds besides its events.
type header struct {
	legacy          bool
	base            int64 // baseTimeNanoseconds, when hasBase
	hasBase         bool
	rank            int64
	hasRank         bool
	distributedInfo []byte
	members         []member // the other top-level members, in order
}

type member struct{ key, raw []byte }

// readJSON reads a Chrome trace (Kineto's object or the legacy array) from r, handing each
// event to rd.fn in file order (through rd.par's workers when set). name names the input in
// errors.
func readJSON(r io.Reader, name string, h *header, rd *reader) error {
	s := jsonscan.New(r, name, nil)
	s.SkipBOM()
	c, ok := s.Peek()
	if !ok {
		return s.ErrEOF()
	}
	rd.s = s
	switch c {
	case '[':
		h.legacy = true
		return rd.array()
	case '{':
	case '"', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return s.ErrHere("a trace is a JSON object or array, not %s", s.ValueKind())
	default:
		return s.ErrHere("not JSON: it starts with %q", c)
	}
	it := s.Object()
	sawEvents := false
	for it.Next() {
		key := it.Key()
		switch string(key) {
		case "traceEvents":
			sawEvents = true
			if err := rd.array(); err != nil {
				return err
			}
		case "baseTimeNanoseconds":
			v, ok, err := s.Int(true)
			if err != nil {
				return err
			}
			h.base, h.hasBase = v, ok
		case "distributedInfo":
			raw, err := s.Raw()
			if err != nil {
				return err
			}
			h.distributedInfo = bytes.Clone(raw)
			h.rank, h.hasRank = rankOf(raw, name)
		default:
			k := bytes.Clone(key)
			raw, err := s.Raw()
			if err != nil {
				return err
			}
			h.members = append(h.members, member{k, bytes.Clone(raw)})
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if !sawEvents {
		return s.ErrAt(0, "no \"traceEvents\" array: not a Chrome trace")
	}
	return nil
}

// rankOf reads "rank" from a distributedInfo object.
func rankOf(raw []byte, name string) (int64, bool) {
	s := jsonscan.NewBytes(raw, 0, name)
	it := s.ObjectOrSkip()
	for it.Next() {
		if string(it.Key()) == "rank" {
			v, ok, err := s.Int(true)
			return v, ok && err == nil
		}
		if s.Skip() != nil {
			return 0, false
		}
	}
	return 0, false
}

type reader struct {
	s  *jsonscan.Scanner
	fn func(*event) error
	// encodeArgs, when set, reads the args object of an event whose phase is known by then
	// and is not 'M' or 'C' straight from the scanner (no copy, no second parse).
	encodeArgs func(s *jsonscan.Scanner, b []byte) ([]byte, error)
	par        *parallel // when set, the array's events are parsed on workers
	enc        []byte
	scratch    []byte
	ev         event
}

// array reads the trace-event array.
func (rd *reader) array() error {
	if rd.par != nil {
		return rd.par.array(rd)
	}
	return rd.events()
}

func (rd *reader) events() error {
	s := rd.s
	it := s.Array()
	for it.Next() {
		if c, _ := s.Peek(); c != '{' {
			if err := s.Skip(); err != nil {
				return err
			}
			continue
		}
		if err := rd.event(); err != nil {
			return err
		}
	}
	return it.Err()
}

// span is a view into the reader's scratch, resolved once the event is read (scratch may
// move while it grows).
type span struct{ off, end int32 }

func (rd *reader) keep(b []byte) span {
	off := len(rd.scratch)
	rd.scratch = append(rd.scratch, b...)
	return span{int32(off), int32(len(rd.scratch))}
}

func (rd *reader) view(sp span) []byte {
	if sp.end == 0 {
		return nil
	}
	return rd.scratch[sp.off:sp.end:sp.end]
}

func (rd *reader) event() error {
	s := rd.s
	start := s.Offset()
	rd.scratch = rd.scratch[:0]
	ev := &rd.ev
	*ev = event{}
	var name, cat, pid, tid, id, args, extra span
	var extraBuf []byte
	it := s.Object()
	for it.Next() {
		key := it.Key()
		var err error
		switch string(key) {
		case "ph":
			var v []byte
			if v, err = s.Str(); err == nil && len(v) > 0 {
				ev.ph = v[0]
			}
		case "name":
			var v []byte
			if v, err = s.Str(); err == nil {
				name = rd.keep(v)
			}
		case "cat":
			var v []byte
			if v, err = s.Str(); err == nil {
				cat = rd.keep(v)
			}
		case "pid", "tid", "id":
			var v []byte
			if v, err = s.Raw(); err == nil {
				switch key[0] {
				case 'p':
					pid = rd.keep(v)
				case 't':
					tid = rd.keep(v)
				default:
					id = rd.keep(v)
				}
			}
		case "ts", "dur":
			isDur := key[0] == 'd'
			var ns int64
			if _, more := s.Peek(); !more {
				return s.ErrEOF()
			}
			if v, ok := s.Fixed3(); ok {
				ns = v
			} else {
				tok, kind, e := s.Num()
				if e != nil {
					return e
				}
				var ok bool
				if ns, ok = usToNs(tok, kind); !ok {
					return s.ErrAt(start, "%q %s is not a time in µs", key, jsonscan.Clip(tok))
				}
			}
			if isDur {
				ev.dur, ev.hasDur = ns, true
			} else {
				ev.ts = ns
			}
		case "bp", "s":
			var v []byte
			var ok bool
			if v, ok, err = s.StrOrSkip(); ok && len(v) > 0 {
				if key[0] == 'b' {
					ev.bp = v[0]
				} else {
					ev.scope = v[0]
				}
			}
		case "args":
			if rd.encodeArgs != nil && ev.ph != 0 && ev.ph != 'M' && ev.ph != 'C' {
				rd.enc, err = rd.encodeArgs(s, rd.enc[:0])
				ev.hasEnc = true
				break
			}
			var v []byte
			if v, err = s.Raw(); err == nil {
				args = rd.keep(v)
			}
		default:
			k := rd.keep(key)
			var v []byte
			if v, err = s.Raw(); err == nil {
				if len(extraBuf) > 0 {
					extraBuf = append(extraBuf, ", "...)
				}
				extraBuf = trace.AppendString(extraBuf, string(rd.view(k)))
				extraBuf = append(extraBuf, ": "...)
				extraBuf = append(extraBuf, v...)
			}
		}
		if err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if len(extraBuf) > 0 {
		extra = rd.keep(extraBuf)
	}
	ev.name, ev.cat, ev.pid, ev.tid = rd.view(name), rd.view(cat), rd.view(pid), rd.view(tid)
	ev.id, ev.args, ev.extra = rd.view(id), rd.view(args), rd.view(extra)
	if ev.hasEnc {
		ev.encArgs = rd.enc
	}
	return rd.fn(ev)
}

// usToNs converts a number token of µs to integer ns: exact for decimals (digits past the
// third decimal rounded half up), through float64 for exponents.
func usToNs(tok []byte, kind jsonscan.NumKind) (int64, bool) {
	if kind == jsonscan.NumInt {
		v, ok := jsonscan.ParseInt(tok)
		if !ok || v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
			return 0, false
		}
		return v * 1000, true
	}
	if bytes.IndexAny(tok, "eE") < 0 {
		neg := tok[0] == '-'
		if neg {
			tok = tok[1:]
		}
		dot := bytes.IndexByte(tok, '.')
		ip, ok := jsonscan.ParseInt(tok[:dot])
		if ok && ip <= math.MaxInt64/1000-1 {
			frac := tok[dot+1:]
			var f int64
			for i := range 3 {
				f *= 10
				if i < len(frac) {
					f += int64(frac[i] - '0')
				}
			}
			if len(frac) > 3 && frac[3] >= '5' {
				f++
			}
			v := ip*1000 + f
			if neg {
				v = -v
			}
			return v, true
		}
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f*1000) >= math.MaxInt64 {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}
