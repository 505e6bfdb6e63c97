package duckdbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// checkArrowReads reads every file under dir with Apache Arrow's Parquet reader (arrow-go, a
// port of the C++ one) and with DuckDB, and holds them to the same rows, cell by cell: the
// files orprof's own writer makes read alike in two engines besides the writer's tests'.
func checkArrowReads(t *testing.T, db *sql.DB, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Parquet files under %s (%v)", dir, err)
	}
	for _, f := range files {
		arrowRows := readArrow(t, f)
		duckRows := readDuck(t, db, f)
		if len(arrowRows) != len(duckRows) {
			t.Fatalf("%s: arrow reads %d rows, DuckDB %d", f, len(arrowRows), len(duckRows))
		}
		for i := range duckRows {
			if a, d := fmt.Sprint(arrowRows[i]), fmt.Sprint(duckRows[i]); a != d {
				t.Fatalf("%s row %d:\narrow  %s\nDuckDB %s", f, i, a, d)
			}
		}
	}
}

// readArrow returns the rows of a file as arrow-go reads them: int64, float64, bool, string,
// nil for null and []any for a list.
func readArrow(t *testing.T, path string) [][]any {
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pf, err := file.NewParquetReader(r)
	if err != nil {
		t.Fatalf("%s: arrow: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("%s: arrow: %v", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: arrow: %v", path, err)
	}
	defer tbl.Release()
	rows := make([][]any, tbl.NumRows())
	for i := range rows {
		rows[i] = make([]any, tbl.NumCols())
	}
	for c := range int(tbl.NumCols()) {
		i := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for j := range chunk.Len() {
				rows[i][c] = arrowValue(t, chunk, j)
				i++
			}
		}
	}
	return rows
}

func arrowValue(t *testing.T, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		out := []any{}
		for k := lo; k < hi; k++ {
			out = append(out, arrowValue(t, a.ListValues(), int(k)))
		}
		return out
	}
	t.Fatalf("arrow: column of %s", a.DataType())
	return nil
}

// readDuck returns the rows of a file as DuckDB reads them, in file order.
func readDuck(t *testing.T, db *sql.DB, path string) [][]any {
	rs, err := db.Query("SELECT * FROM read_parquet(?)", path)
	if err != nil {
		t.Fatalf("%s: DuckDB: %v", path, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range row {
			if l, ok := v.([]any); ok && l == nil {
				row[i] = []any{}
			}
		}
		rows = append(rows, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkStats holds every column chunk's statistics, as DuckDB reads them from a file's
// footer, to the column's values: its null count, and the least and greatest of its integers
// and strings (the bounds engines skip row groups by).
func checkStats(t *testing.T, db *sql.DB, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Parquet files under %s (%v)", dir, err)
	}
	for _, f := range files {
		rs, err := db.Query(`SELECT path_in_schema, type, row_group_num_rows, stats_null_count,
			coalesce(stats_min_value, 'none'), coalesce(stats_max_value, 'none')
			FROM parquet_metadata(?) WHERE row_group_id = 0 AND type IN ('INT64', 'BYTE_ARRAY') AND path_in_schema NOT LIKE '%,%'`, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		type chunk struct {
			col, typ   string
			rows, null int64
			lo, hi     string
		}
		var cs []chunk
		for rs.Next() {
			var c chunk
			if err := rs.Scan(&c.col, &c.typ, &c.rows, &c.null, &c.lo, &c.hi); err != nil {
				t.Fatal(err)
			}
			cs = append(cs, c)
		}
		rs.Close()
		var groups int64
		if err := db.QueryRow("SELECT count(DISTINCT row_group_id) FROM parquet_metadata(?)", f).Scan(&groups); err != nil {
			t.Fatal(err)
		}
		if groups != 1 {
			continue // the tables of the testdata traces are one row group each
		}
		for _, c := range cs {
			var null int64
			var lo, hi string
			q := fmt.Sprintf(`SELECT count(*) - count("%[1]s"), coalesce(min("%[1]s")::VARCHAR, 'none'), coalesce(max("%[1]s")::VARCHAR, 'none') FROM read_parquet(?)`, c.col)
			if err := db.QueryRow(q, f).Scan(&null, &lo, &hi); err != nil {
				t.Fatalf("%s: %s: %v", f, c.col, err)
			}
			if c.rows == 0 {
				lo, hi = "none", "none"
			}
			if got, want := fmt.Sprint(c.null, " ", c.lo, " ", c.hi), fmt.Sprint(null, " ", lo, " ", hi); got != want {
				t.Errorf("%s: %s: statistics %q, values %q", f, c.col, got, want)
			}
		}
	}
}
