package export

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestSchemaDocumented: every column of every table is named in its table's section of
// docs/schema.md, and the page states the schema version.
func TestSchemaDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/schema.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if want := "(schema version " + strconv.Itoa(SchemaVersion) + ")"; !strings.Contains(doc, want) {
		t.Errorf("docs/schema.md does not say %q", want)
	}
	for _, c := range []struct {
		table string
		row   any
	}{
		{TableKernels, KernelRow{}}, {TableOps, OpRow{}}, {TableSteps, StepRow{}}, {TableCollectives, CollectiveRow{}},
		{TableIdle, IdleRow{}}, {TableMemory, MemoryRow{}}, {TableOpsTree, OpTreeRow{}},
	} {
		t.Run(c.table, func(t *testing.T) {
			_, sec, ok := strings.Cut(doc, "\n## "+c.table+" ")
			if !ok {
				t.Fatalf("docs/schema.md has no section \"## %s\"", c.table)
			}
			sec, _, _ = strings.Cut(sec, "\n## ")
			for _, f := range parquet.SchemaOf(c.row).Fields() {
				if !strings.Contains(sec, "`"+f.Name()+"`") {
					t.Errorf("column %s.%s is not in docs/schema.md", c.table, f.Name())
				}
			}
		})
	}
}
