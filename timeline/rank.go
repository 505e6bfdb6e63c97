package timeline

import "reflect"

// SetRank numbers a summary of one rank that does not know its rank (its trace names none:
// RankInfo.HasRank is false) as rank r — every per-rank figure — and derives the cross-rank
// figures again. Summaries written one trace at a time all say rank 0; a reader of many
// (orprof report summaries/) numbers them by their position, as the table's merge does.
func (s *Summary) SetRank(r int64) {
	if len(s.Ranks) != 1 || s.Ranks[0].HasRank {
		return
	}
	setRank(reflect.ValueOf(s).Elem(), r)
	s.derive()
}

// setRank sets every int64 field named Rank in v, through structs, slices and pointers.
func setRank(v reflect.Value, r int64) {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			f := v.Field(i)
			if !t.Field(i).IsExported() {
				continue
			}
			if t.Field(i).Name == "Rank" && f.Kind() == reflect.Int64 {
				f.SetInt(r)
				continue
			}
			setRank(f, r)
		}
	case reflect.Slice:
		for i := range v.Len() {
			setRank(v.Index(i), r)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			setRank(v.Elem(), r)
		}
	}
}
