package kernels

import (
	"cmp"
	"slices"
)

// CategoryTotal is the device time of the kernels of one category.
type CategoryTotal struct {
	Category string `json:"name"`
	// Group is HolisticTraceAnalysis's kernel type of the category (Category.Group).
	Group   string  `json:"group"`
	Kernels int     `json:"kernels"`
	Calls   int64   `json:"calls"`
	TotalNs int64   `json:"total_ns"`
	TotalUs float64 `json:"total_us"` // TotalNs in µs
}

// ByCategory sums the kernels' calls and totals per category under rules (nil: the built-in
// ones), the largest total first (ties in Categories' order): the "device time by category"
// of the report's Kernels view. The totals add up to DeviceUs.
func (s *Summary) ByCategory(rules *Rules) []CategoryTotal {
	if rules == nil {
		rules = Default()
	}
	idx := map[Category]int{}
	var out []CategoryTotal
	order := map[Category]int{}
	for i, c := range Categories() {
		order[c] = i
	}
	cats := []Category{}
	for _, k := range s.Kernels {
		c := k.Category(rules)
		i, ok := idx[c]
		if !ok {
			i = len(out)
			idx[c] = i
			out = append(out, CategoryTotal{Category: c.String(), Group: c.Group()})
			cats = append(cats, c)
		}
		out[i].Kernels++
		out[i].Calls += k.Calls
		out[i].TotalNs += k.TotalNs
	}
	for i := range out {
		out[i].TotalUs = nsToUs(out[i].TotalNs)
	}
	perm := make([]int, len(out))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		return cmp.Or(cmp.Compare(out[b].TotalNs, out[a].TotalNs), cmp.Compare(order[cats[a]], order[cats[b]]))
	})
	sorted := make([]CategoryTotal, len(out))
	for i, p := range perm {
		sorted[i] = out[p]
	}
	return sorted
}
