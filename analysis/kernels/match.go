package kernels

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds the first of a list of regular expressions that matches a name, in one pass
// over the name whatever the number of rules.
//
// Each rule is compiled, where its syntax allows, into a finite set of patterns: a sequence of
// single-character classes and ^ or $ around a literal key (the longest run of literal ASCII
// characters). One Aho–Corasick automaton over every key, case-folded, scans the name; each
// key found is checked against its pattern's characters around it. A rule that does not
// expand into such a set (a repetition, a word boundary) keeps its regular expression, run
// only when the automaton found one of its required literals, or always when it has none.
// So a name costs one scan plus, at most, one linear regexp run per such rule. (?i) folds s
// and k to U+017F and U+212A too: a name holding either is matched by the regexps alone.
type matcher struct {
	rules  []*regexp.Regexp
	pats   []pattern
	always []int  // the rules kept as a regexp with no required literal
	hasRe  []bool // rule i is kept as a regexp
	// The automaton: byte classes, a dense transition table (build says its encoding), and
	// the patterns whose key ends at each state (through the failure links).
	class  [256]uint8
	width  int
	next   []int32
	output [][]int32
}

// elem is one character of a pattern: a literal rune (fold: either case), a class (ranges,
// as regexp/syntax gives them), or an anchor.
type elem struct {
	op     uint8
	r      rune
	fold   bool
	ranges []rune
}

const (
	elemLit uint8 = iota
	elemClass
	elemBegin
	elemEnd
)

// pattern is one expansion of a rule: elems, of which [k0, k1) are the key.
type pattern struct {
	rule   int
	elems  []elem
	k0, k1 int
	gate   bool // the key only admits the rule's regexp
	mark   bool // a fragment the scan reports on its own (rule -1)
}

// maxExpansions bounds the patterns of one rule; a rule with more keeps its regexp.
const maxExpansions = 256

// newMatcher is the matcher of the rules res that also reports, in the same scan, whether a
// name holds one of the literal fragments marks (case-sensitive; TensorCore's).
func newMatcher(res []*regexp.Regexp, marks []string) *matcher {
	m := &matcher{rules: res, hasRe: make([]bool, len(res))}
	var keys []string
	for _, k := range marks {
		p := pattern{rule: -1, mark: true, k1: len(k)}
		for i := 0; i < len(k); i++ {
			p.elems = append(p.elems, elem{op: elemLit, r: rune(k[i])})
		}
		m.pats = append(m.pats, p)
		keys = append(keys, keyString(p))
	}
	for i, re := range res {
		seqs, ok := expandRegexp(re.String())
		if ok {
			var ps []pattern
			for _, s := range seqs {
				k0, k1 := keyOf(s)
				if k1 == k0 {
					ok = false
					break
				}
				ps = append(ps, pattern{rule: i, elems: s, k0: k0, k1: k1})
			}
			if ok {
				for _, p := range ps {
					m.pats = append(m.pats, p)
					keys = append(keys, keyString(p))
				}
				continue
			}
		}
		m.hasRe[i] = true
		lits := required(re.String())
		if len(lits) == 0 {
			m.always = append(m.always, i)
			continue
		}
		for _, l := range lits {
			m.pats = append(m.pats, pattern{rule: i, gate: true})
			keys = append(keys, l)
		}
	}
	m.build(keys)
	return m
}

// keyOf picks the longest run of literal ASCII characters of s.
func keyOf(s []elem) (k0, k1 int) {
	for i := 0; i < len(s); {
		if !keyable(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && keyable(s[j]) {
			j++
		}
		if j-i > k1-k0 {
			k0, k1 = i, j
		}
		i = j
	}
	return k0, k1
}

func keyable(e elem) bool {
	// 'k' and 's' fold to non-ASCII runes too (U+212A, U+017F): names holding those take
	// the regexp path (lookup), so a folded key of ASCII letters is exact.
	return e.op == elemLit && e.r < utf8.RuneSelf
}

func keyString(p pattern) string {
	b := make([]byte, 0, p.k1-p.k0)
	for _, e := range p.elems[p.k0:p.k1] {
		b = append(b, lower(byte(e.r)))
	}
	return string(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// build makes the automaton of keys (lower case; key i belongs to pattern i).
func (m *matcher) build(keys []string) {
	n := 1
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if m.class[k[i]] == 0 {
				m.class[k[i]] = uint8(n)
				if up := k[i] - 'a' + 'A'; 'a' <= k[i] && k[i] <= 'z' {
					m.class[up] = uint8(n)
				}
				n++
			}
		}
	}
	m.width = n
	// The trie, with -1 for no edge.
	m.next = make([]int32, n)
	for i := range m.next {
		m.next[i] = -1
	}
	m.output = [][]int32{nil}
	for pi, k := range keys {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := int32(m.class[k[i]])
			t := m.next[int(s)*n+int(c)]
			if t < 0 {
				t = int32(len(m.output))
				m.output = append(m.output, nil)
				for range n {
					m.next = append(m.next, -1)
				}
				m.next[int(s)*n+int(c)] = t
			}
			s = t
		}
		m.output[s] = append(m.output[s], int32(pi))
	}
	// Breadth first: failure links, and the missing edges filled from them.
	fail := make([]int32, len(m.output))
	queue := []int32{}
	for c := 0; c < n; c++ {
		if t := m.next[c]; t < 0 {
			m.next[c] = 0
		} else {
			fail[t] = 0
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.output[s] = append(m.output[s], m.output[fail[s]]...)
		for c := 0; c < n; c++ {
			t := m.next[int(s)*n+c]
			f := m.next[int(fail[s])*n+c]
			if t < 0 {
				m.next[int(s)*n+c] = f
				continue
			}
			fail[t] = f
			queue = append(queue, t)
		}
	}
	// Each entry becomes its target's row offset, negative when the target has outputs: the
	// scan reads one entry per byte and the outputs only where a key ends.
	for i, t := range m.next {
		v := t * int32(n)
		if len(m.output[t]) > 0 {
			v = ^v
		}
		m.next[i] = v
	}
}

// lookup returns the index of the first rule that matches name, or -1.
func (m *matcher) lookup(name string) int {
	i, _ := m.scan(name)
	return i
}

// scan returns the index of the first rule that matches name, or -1, and whether name holds
// one of the marks.
func (m *matcher) scan(name string) (first int, marked bool) {
	best := len(m.rules)
	var gated []bool
	var high byte   // the bits of every byte: a non-ASCII name may need the regexps
	row := int32(0) // the state's row in next
	for i := 0; i < len(name); i++ {
		c := name[i]
		high |= c
		row = m.next[row+int32(m.class[c])]
		if row >= 0 {
			continue
		}
		row = ^row
		for _, pi := range m.output[row/int32(m.width)] {
			p := &m.pats[pi]
			if p.mark {
				marked = marked || p.matchAt(name, i+1)
				continue
			}
			if p.rule >= best {
				continue
			}
			if p.gate {
				if gated == nil {
					gated = make([]bool, len(m.rules))
				}
				gated[p.rule] = true
				continue
			}
			if p.matchAt(name, i+1) {
				best = p.rule
			}
		}
	}
	if high >= utf8.RuneSelf && (strings.Contains(name, "\u017f") || strings.Contains(name, "\u212a")) {
		for i, re := range m.rules {
			if re.MatchString(name) {
				return i, marked
			}
		}
		return -1, marked
	}
	// The regexp rules before the best found, in order: those the scan admitted, and those
	// with no key.
	for i := 0; i < best; i++ {
		if m.hasRe[i] && (gated != nil && gated[i] || contains(m.always, i)) && m.rules[i].MatchString(name) {
			return i, marked
		}
	}
	if best == len(m.rules) {
		return -1, marked
	}
	return best, marked
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// matchAt reports whether p matches name with its key ending at byte end.
func (p *pattern) matchAt(name string, end int) bool {
	start := end - (p.k1 - p.k0)
	for j, e := range p.elems[p.k0:p.k1] {
		if c := name[start+j]; !e.fold && rune(c) != e.r {
			return false
		}
	}
	pos := start
	for j := p.k0 - 1; j >= 0; j-- {
		e := &p.elems[j]
		switch e.op {
		case elemBegin:
			if pos != 0 {
				return false
			}
		case elemEnd:
			if pos != len(name) {
				return false
			}
		default:
			if pos == 0 {
				return false
			}
			r, n := utf8.DecodeLastRuneInString(name[:pos])
			if !e.matches(r) {
				return false
			}
			pos -= n
		}
	}
	pos = end
	for _, e := range p.elems[p.k1:] {
		switch e.op {
		case elemBegin:
			if pos != 0 {
				return false
			}
		case elemEnd:
			if pos != len(name) {
				return false
			}
		default:
			if pos == len(name) {
				return false
			}
			r, n := utf8.DecodeRuneInString(name[pos:])
			if !e.matches(r) {
				return false
			}
			pos += n
		}
	}
	return true
}

func (e *elem) matches(r rune) bool {
	if e.op == elemLit {
		if r == e.r {
			return true
		}
		return e.fold && r < utf8.RuneSelf && e.r < utf8.RuneSelf && lower(byte(r)) == lower(byte(e.r))
	}
	for i := 0; i+1 < len(e.ranges); i += 2 {
		if e.ranges[i] <= r && r <= e.ranges[i+1] {
			return true
		}
	}
	return false
}

// expandRegexp expands re into the finite set of character sequences it matches, or false
// when it has a repetition, a word boundary, a multi-line anchor or too many sequences.
func expandRegexp(re string) ([][]elem, bool) {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return nil, false
	}
	return expand(t.Simplify())
}

func expand(t *syntax.Regexp) ([][]elem, bool) {
	switch t.Op {
	case syntax.OpEmptyMatch:
		return [][]elem{{}}, true
	case syntax.OpLiteral:
		s := make([]elem, len(t.Rune))
		for i, r := range t.Rune {
			s[i] = elem{op: elemLit, r: r, fold: t.Flags&syntax.FoldCase != 0 && r < utf8.RuneSelf}
			if t.Flags&syntax.FoldCase != 0 && r >= utf8.RuneSelf {
				return nil, false
			}
		}
		return [][]elem{s}, true
	case syntax.OpCharClass:
		return [][]elem{{{op: elemClass, ranges: t.Rune}}}, true
	case syntax.OpAnyCharNotNL:
		return [][]elem{{{op: elemClass, ranges: []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}}}}, true
	case syntax.OpAnyChar:
		return [][]elem{{{op: elemClass, ranges: []rune{0, utf8.MaxRune}}}}, true
	case syntax.OpBeginText:
		return [][]elem{{{op: elemBegin}}}, true
	case syntax.OpEndText:
		return [][]elem{{{op: elemEnd}}}, true
	case syntax.OpCapture:
		return expand(t.Sub[0])
	case syntax.OpQuest:
		s, ok := expand(t.Sub[0])
		if !ok || len(s)+1 > maxExpansions {
			return nil, false
		}
		return append(s, []elem{}), true
	case syntax.OpAlternate:
		var out [][]elem
		for _, sub := range t.Sub {
			s, ok := expand(sub)
			if !ok || len(out)+len(s) > maxExpansions {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpConcat:
		out := [][]elem{{}}
		for _, sub := range t.Sub {
			s, ok := expand(sub)
			if !ok || len(out)*len(s) > maxExpansions {
				return nil, false
			}
			var next [][]elem
			for _, a := range out {
				for _, b := range s {
					next = append(next, append(append([]elem{}, a...), b...))
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// required returns literals (lower case) one of which every match of re holds, or nil when
// it cannot tell.
func required(re string) []string {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return nil
	}
	return req(t.Simplify())
}

func req(t *syntax.Regexp) []string {
	switch t.Op {
	case syntax.OpLiteral:
		b := make([]byte, 0, len(t.Rune))
		for _, r := range t.Rune {
			if r >= utf8.RuneSelf {
				if t.Flags&syntax.FoldCase != 0 {
					return nil
				}
				b = utf8.AppendRune(b, r)
				continue
			}
			b = append(b, lower(byte(r)))
		}
		return []string{string(b)}
	case syntax.OpCapture, syntax.OpPlus:
		return req(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return req(t.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		score := 0
		for _, sub := range t.Sub {
			if s := req(sub); s != nil {
				least := len(s[0])
				for _, l := range s {
					least = min(least, len(l))
				}
				if least > score {
					best, score = s, least
				}
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, sub := range t.Sub {
			s := req(sub)
			if s == nil {
				return nil
			}
			out = append(out, s...)
		}
		return out
	}
	return nil
}
