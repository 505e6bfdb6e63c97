package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	codeTrace = "../../analysis/code/testdata/mlp_train.json.gz"
	codeGPU   = "../../testdata/kineto-extra/tracelens_mi300_bert_small.json.gz"
)

// codeCLI runs orprof in-process: exit code, stdout, stderr.
func codeCLI(stdin []byte, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestCodeModes: orprof code reads a trace plain, gzip, on stdin, as a directory of ranks,
// and its own summaries (files and stdin); every flag takes effect in every mode or is
// refused in one line naming it.
func TestCodeModes(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "rank0.json")
	require.NoError(t, os.WriteFile(plain, readPlain(t, codeTrace), 0o644))
	ranks := filepath.Join(dir, "ranks")
	require.NoError(t, os.Mkdir(ranks, 0o755))
	for _, n := range []string{"a.json", "b.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(ranks, n), readPlain(t, codeTrace), 0o644))
	}
	sum := filepath.Join(dir, "code.json")
	require.NoError(t, os.WriteFile(sum, cliOut(t, nil, "code", "--format", "json", codeTrace), 0o644))
	sumBytes, _ := os.ReadFile(sum)

	type mode struct {
		name  string
		args  []string
		stdin []byte
		sum   bool
	}
	modes := []mode{
		{"trace", []string{plain}, nil, false},
		{"gz", []string{codeTrace}, nil, false},
		{"stdin", []string{"-"}, readPlain(t, codeTrace), false},
		{"dir", []string{ranks}, nil, false},
		{"summary", []string{sum}, nil, true},
		{"stdin-summary", []string{"-"}, sumBytes, true},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			code, base, errs := codeCLI(m.stdin, append([]string{"code"}, m.args...)...)
			require.Equal(t, 0, code, errs)
			assert.Contains(t, base, "Net_0/Heavy_0/Linear_")
			for _, tc := range []struct {
				flags []string
				check func(t *testing.T, out string)
			}{
				{[]string{"--format", "json"}, func(t *testing.T, out string) {
					assert.True(t, strings.HasPrefix(out, `{`+"\n"+`  "orprof_code_summary": 1`))
				}},
				{[]string{"--format", "csv"}, func(t *testing.T, out string) { assert.True(t, strings.HasPrefix(out, "Module,calls,fwd_cpu_ns")) }},
				{[]string{"--format", "markdown"}, func(t *testing.T, out string) { assert.Regexp(t, `^\| Module +\|`, out) }},
				{[]string{"--row-limit", "3"}, func(t *testing.T, out string) { assert.Less(t, strings.Count(out, "\n"), strings.Count(base, "\n")) }},
				{[]string{"--max-name-column-width", "12"}, func(t *testing.T, out string) { assert.Less(t, len(out), len(base)) }},
			} {
				code, out, errs := codeCLI(m.stdin, append(append([]string{"code"}, tc.flags...), m.args...)...)
				require.Equal(t, 0, code, "%v: %s", tc.flags, errs)
				tc.check(t, out)
			}
			// --by line: a trace is attributed by line; a summary by module is refused.
			code, out, errs := codeCLI(m.stdin, append([]string{"code", "--by", "line"}, m.args...)...)
			if m.sum {
				assert.Equal(t, 2, code)
				assert.Contains(t, errs, "not by line")
			} else {
				require.Equal(t, 0, code, errs)
				assert.Contains(t, out, "Source line")
			}
			code, out, errs = codeCLI(m.stdin, append([]string{"code", "--link", "external-id"}, m.args...)...)
			if m.sum {
				assert.Equal(t, 2, code)
				assert.Contains(t, errs, "--link")
				assert.Equal(t, 1, strings.Count(errs, "\n"))
			} else {
				require.Equal(t, 0, code, errs)
				assert.NotEmpty(t, out)
			}
		})
	}
	// --link with a trace and a summary applies to the trace and says so.
	code, _, errs := codeCLI(nil, "code", "--link", "external-id", codeTrace, sum)
	assert.Equal(t, 0, code)
	assert.Contains(t, errs, "note: --link applies to the traces among the inputs")
	// Two ranks sum: the directory's CPU total is twice the trace's.
	_, one, _ := codeCLI(nil, "code", "--format", "csv", codeTrace)
	_, two, _ := codeCLI(nil, "code", "--format", "csv", ranks)
	assert.NotEqual(t, one, two)
}

// TestCodeRefusals: bad flags and inputs get one line naming them, exit 2.
func TestCodeRefusals(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		names string
	}{
		{[]string{"code"}, "TRACE"},
		{[]string{"code", "--by", "file", codeTrace}, "--by"},
		{[]string{"code", "--format", "html", codeTrace}, "--format"},
		{[]string{"code", "--row-limit", "-2", codeTrace}, "--row-limit"},
		{[]string{"code", "--max-name-column-width", "2", codeTrace}, "--max-name-column-width"},
		{[]string{"code", "../../testdata/kineto/cpu_only.json.gz"}, "with_stack=True"},
		{[]string{"code", "../../testdata/kineto/cpu_only.json.gz", "-"}, "stdin"},
		{[]string{"code", "nope.json"}, "nope.json"},
	} {
		code, out, errs := codeCLI(nil, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "%v: one line: %q", tc.args, errs)
		assert.Contains(t, errs, tc.names)
	}
	// A kernels summary is not orprof code's: it says what reads it.
	dir := t.TempDir()
	ks := filepath.Join(dir, "k.json")
	require.NoError(t, os.WriteFile(ks, cliOut(t, nil, "kernels", "--format", "json", codeGPU), 0o644))
	code, _, errs := codeCLI(nil, "code", ks)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "kernels summary")
	// And a code summary is not the other commands': they say what reads it.
	cs := filepath.Join(dir, "c.json")
	require.NoError(t, os.WriteFile(cs, cliOut(t, nil, "code", "--format", "json", codeGPU), 0o644))
	for _, cmd := range []string{"kernels", "timeline"} { // (table and merge identify their inputs in package input)
		code, _, errs := codeCLI(nil, cmd, cs)
		assert.Equal(t, 2, code, cmd)
		assert.Contains(t, errs, "a code summary (orprof code --format json)", cmd)
		assert.Equal(t, 1, strings.Count(errs, "\n"), cmd)
	}
}

// TestCodeGPUTrace: the BERT trace's device time is in its module rows, and the footer says
// the rows sum to it.
func TestCodeGPUTrace(t *testing.T) {
	out := string(cliOut(t, nil, "code", codeGPU))
	assert.Contains(t, out, "BertLayer_0")
	assert.Contains(t, out, "device time linked to ops: 390.748us. The rows sum to both.")
	assert.Contains(t, out, "(no module): ")
}

// TestCodeLink: --link external-id takes effect on a trace whose kernels reach their ops by
// their launch (rule 2): less device time is in the rows.
func TestCodeLink(t *testing.T) {
	tr := "../../testdata/kineto-extra/tracelens_rocm7_sglang_decode.json.gz"
	all := string(cliOut(t, nil, "code", "--format", "csv", tr))
	strict := string(cliOut(t, nil, "code", "--format", "csv", "--link", "external-id", tr))
	assert.NotEqual(t, all, strict)
}

// TestKernelsByCode: orprof kernels --by module|line on traces in every form; what it cannot
// take is refused in one line naming the flag.
func TestKernelsByCode(t *testing.T) {
	dir := t.TempDir()
	ranks := filepath.Join(dir, "ranks")
	require.NoError(t, os.Mkdir(ranks, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ranks, "a.json"), readPlain(t, codeGPU), 0o644))
	for _, m := range []struct {
		args  []string
		stdin []byte
	}{{[]string{codeGPU}, nil}, {[]string{ranks}, nil}, {[]string{"-"}, readPlain(t, codeGPU)}} {
		code, base, errs := codeCLI(m.stdin, append([]string{"kernels", "--by", "module"}, m.args...)...)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, base, "BertSdpaSelfAttention_0  attn_fwd")
		_, line, _ := codeCLI(m.stdin, append([]string{"kernels", "--by", "line"}, m.args...)...)
		assert.Contains(t, line, "Source line")
		_, limited, _ := codeCLI(m.stdin, append([]string{"kernels", "--by", "module", "--row-limit", "3"}, m.args...)...)
		assert.Less(t, strings.Count(limited, "\n"), strings.Count(base, "\n"))
		_, narrow, _ := codeCLI(m.stdin, append([]string{"kernels", "--by", "module", "--max-name-column-width", "12"}, m.args...)...)
		assert.Less(t, len(narrow), len(base))
		_, csv, _ := codeCLI(m.stdin, append([]string{"kernels", "--by", "module", "--format", "csv"}, m.args...)...)
		assert.True(t, strings.HasPrefix(csv, "module,kernel,device_ns\n"))
		_, md, _ := codeCLI(m.stdin, append([]string{"kernels", "--by", "module", "--format", "markdown"}, m.args...)...)
		assert.Regexp(t, `^\| Module +\| Kernel +\|`, md)
	}
	sglang := "../../testdata/kineto-extra/tracelens_rocm7_sglang_decode.json.gz"
	_, all, _ := codeCLI(nil, "kernels", "--by", "line", "--format", "csv", sglang)
	_, strict, _ := codeCLI(nil, "kernels", "--by", "line", "--format", "csv", "--link", "external-id", sglang)
	assert.NotEqual(t, all, strict)

	ks := filepath.Join(dir, "k.json")
	require.NoError(t, os.WriteFile(ks, cliOut(t, nil, "kernels", "--format", "json", codeGPU), 0o644))
	for _, tc := range []struct {
		args  []string
		names string
	}{
		{[]string{"kernels", "--by", "file", codeGPU}, "--by"},
		{[]string{"kernels", "--by", "module", "--by-op", codeGPU}, "--by-op"},
		{[]string{"kernels", "--by", "module", "--rules", ks, codeGPU}, "--rules"},
		{[]string{"kernels", "--by", "module", "--format", "json", codeGPU}, "--format json"},
		{[]string{"kernels", "--by", "module", ks}, "--by"},
		{[]string{"kernels", "--by", "module", "../../testdata/kineto/cpu_only.json.gz"}, "with_stack=True"},
	} {
		code, out, errs := codeCLI(nil, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "%v: %q", tc.args, errs)
		assert.Contains(t, errs, tc.names)
	}
}

// TestCodeRowLimitZero: --row-limit 0 prints no row and the totals, as in every command; the
// kernels of each module likewise.
func TestCodeRowLimitZero(t *testing.T) {
	bert := "../../testdata/kineto-extra/tracelens_mi300_bert_small.json.gz"
	for _, c := range []struct {
		args []string
		tr   string
	}{{[]string{"code"}, codeTrace}, {[]string{"code", "--format", "markdown"}, codeTrace}, {[]string{"kernels", "--by", "module"}, bert}} {
		c1, one, errs := codeCLI(nil, append(append(slices.Clone(c.args), "--row-limit", "1"), c.tr)...)
		require.Equal(t, 0, c1, errs)
		c0, none, errs := codeCLI(nil, append(append(slices.Clone(c.args), "--row-limit", "0"), c.tr)...)
		require.Equal(t, 0, c0, errs)
		assert.Less(t, strings.Count(none, "\n"), strings.Count(one, "\n"), "%v:\n%s\n---\n%s", c.args, one, none)
		assert.NotContains(t, none, "Net_0/Heavy_0/Linear_", "%v: a row printed:\n%s", c.args, none)
	}
}
