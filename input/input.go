package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/internal/quote"
)

// StdinName names standard input in messages and summaries.
const StdinName = "<stdin>"

// MaxDocument bounds a summary held in memory: far beyond any real one, and it keeps a
// hostile input from exhausting memory.
const MaxDocument = 1 << 30

// Input is one input, identified. A file is opened again by whoever reads it; the bytes of a
// stream or of a non-regular file, which can be read only once, are held.
type Input struct {
	// Name names the input in messages: the path as given, or StdinName.
	Name string
	// Path is the regular file that holds the input; "" when its bytes are held.
	Path string
	// Kind is what the input holds.
	Kind Kind
	// Gzip says the input is gzip-compressed.
	Gzip bool

	held []byte    // the bytes read so far (all of them when rest is nil)
	rest io.Reader // the unread rest of a stream
}

// OpenArg identifies a command-line input: "-" is stdin (nil: os.Stdin), read as Read
// reads it; anything else a path, as Open opens it.
func OpenArg(arg string, stdin io.Reader) (*Input, error) {
	if arg != "-" {
		return Open(arg)
	}
	if stdin == nil {
		stdin = os.Stdin
	}
	return Read(stdin, StdinName)
}

// Open identifies the input at path. A regular file is opened, its start read and closed:
// the reader of its kind opens it again. A FIFO or device given by name is read once, in
// full, and held. A directory is an error (Load expands directories).
func Open(path string) (*Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open" // as the readers' own opens say it
		}
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", quote.String(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", quote.String(path), err)
		}
		in := Parse(data, path)
		return in, nil
	}
	in := &Input{Name: path, Path: path}
	in.Kind, in.Gzip = identify(bufio.NewReaderSize(f, 16<<10))
	return in, nil
}

// Read identifies the input r (standard input): it reads r only as far as identifying it
// takes, and holds those bytes; Stream gives them back followed by the rest of r, once.
func Read(r io.Reader, name string) (*Input, error) {
	rec := &recorder{r: r}
	in := &Input{Name: name}
	in.Kind, in.Gzip = identify(bufio.NewReaderSize(rec, 16<<10))
	if rec.err != nil && rec.err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, rec.err)
	}
	in.held = rec.buf
	if rec.err == nil {
		in.rest = r
	}
	return in, nil
}

// Parse identifies the document data (plain or gzip) held in memory.
func Parse(data []byte, name string) *Input {
	in := &Input{Name: name, held: data}
	in.Kind, in.Gzip = identify(bufio.NewReader(bytes.NewReader(data)))
	return in
}

// identify is Identify of br's bytes, through their gzip layer when they have one.
func identify(br *bufio.Reader) (Kind, bool) {
	if !isGzip(br) {
		return Identify(br), false
	}
	// compress/gzip inflates no more than is asked for: identifying a trace takes its first
	// few KB (internal/gz's reader inflates 1 MiB at a time, 10 ms of a large trace).
	z, err := gzip.NewReader(br)
	if err != nil {
		return Trace, true // the trace reader names the error
	}
	z.Multistream(true)
	return Identify(bufio.NewReaderSize(z, 16<<10)), true
}

func isGzip(br *bufio.Reader) bool {
	m, _ := br.Peek(2)
	return gz.IsGzip(m)
}

// recorder keeps every byte read from r.
type recorder struct {
	r   io.Reader
	buf []byte
	err error
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	if err != nil {
		r.err = err
	}
	return n, err
}

// Held reports whether the input's bytes are held in memory rather than in a file.
func (in *Input) Held() bool { return in.Path == "" }

// Stream returns the input's bytes as stored (gzip not undone). A file is opened; an input
// read from a stream can be streamed once.
func (in *Input) Stream() (io.ReadCloser, error) {
	if in.Path != "" {
		return os.Open(in.Path)
	}
	r := io.Reader(bytes.NewReader(in.held))
	if in.rest != nil {
		r, in.rest = io.MultiReader(r, in.rest), nil
		in.held = nil
	}
	return io.NopCloser(r), nil
}

// Document returns the whole document, gunzipped, without a byte order mark: a summary's
// bytes. A corrupt gzip stream is an error saying so, before any of its bytes is parsed. The
// error names the input.
func (in *Input) Document() ([]byte, error) {
	rc, err := in.Stream()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var r io.Reader = rc
	if in.Gzip {
		z, err := gz.NewReader(bufio.NewReader(rc))
		if err != nil {
			return nil, fmt.Errorf("%s: not a valid gzip stream: %v", in.Name, err)
		}
		r = z
	}
	lr := &io.LimitedReader{R: r, N: MaxDocument + 1}
	data, err := io.ReadAll(lr)
	switch {
	case err != nil && in.Gzip:
		return nil, fmt.Errorf("%s: the gzip stream is corrupt: %v", in.Name, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	case lr.N <= 0:
		return nil, fmt.Errorf("%s: larger than %d bytes: not %s", in.Name, MaxDocument, in.Kind)
	}
	return bytes.TrimPrefix(data, utf8BOM), nil
}

// Member returns the JSON of the member key of a report summary, its version checked: the
// summary of one view, which that view's reader reads. A member that is missing or null is an
// error naming it: one of the profiles the report summary was made from had no such view.
func (in *Input) Member(key string) ([]byte, error) {
	if in.Kind != ReportSummary {
		return nil, fmt.Errorf("%s: %s, not a report summary", in.Name, in.Kind)
	}
	doc, err := in.Document()
	if err != nil {
		return nil, err
	}
	return ReportMember(doc, in.Name, key)
}

// ReportMember is Member of a report summary's document held in memory, named name.
func ReportMember(doc []byte, name, key string) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(doc, &members); err != nil {
		return nil, fmt.Errorf("%s: not a valid report summary: %s", name, quote.Clip(err.Error()))
	}
	if err := CheckReportVersion(members[ReportKey]); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m, ok := members[key]
	if !ok {
		return nil, fmt.Errorf("%s: field %s: missing: a report summary holds the %s summary", name, key, key)
	}
	if string(m) == "null" {
		return nil, fmt.Errorf("%s: field %s: null: this report summary has no %s summary (one of the profiles it was made from had none: a table summary has only the table)", name, key, key)
	}
	return m, nil
}

// CheckReportVersion checks the value of a report summary's ReportKey member: nil when it is
// the version this orprof reads.
func CheckReportVersion(raw json.RawMessage) error {
	var v *int
	if len(raw) > 0 && json.Unmarshal(raw, &v) == nil && v != nil && *v == ReportVersion {
		return nil
	}
	got := "none"
	if v != nil {
		got = strconv.Itoa(*v)
	} else if len(raw) > 0 && string(raw) != "null" {
		got = quote.String(string(raw))
	}
	return fmt.Errorf("field %s: version %s: this orprof reads version %d", ReportKey, got, ReportVersion)
}

// KindError is an input a command does not read: a summary of another command's.
type KindError struct {
	Name string
	Kind Kind
	Cmd  string // the command refusing it
}

func (e *KindError) Error() string {
	if e.Cmd == "" {
		return fmt.Sprintf("%s is %s: %s", quote.String(e.Name), e.Kind, e.Kind.ReadBy())
	}
	return fmt.Sprintf("%s is %s, not a trace or a summary orprof %s reads: %s", quote.String(e.Name), e.Kind, e.Cmd, e.Kind.ReadBy())
}

// Check refuses the first input whose kind is not among accept, as read by the command cmd:
// a *KindError.
func Check(ins []*Input, cmd string, accept ...Kind) error {
	for _, in := range ins {
		ok := false
		for _, k := range accept {
			ok = ok || in.Kind == k
		}
		if !ok {
			return &KindError{Name: in.Name, Kind: in.Kind, Cmd: cmd}
		}
	}
	return nil
}

// ErrNoInput is Load's error for no input at all.
var ErrNoInput = errors.New("no input")
