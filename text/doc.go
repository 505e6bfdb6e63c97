// Package text is orprof's text layer: the output formats (Format), the time and percent
// renderings every table prints (Time, Percent), and the text, markdown and CSV table
// writers (Table) of orprof kernels, orprof timeline, the operator table's summaries and
// diffs and the metrics, so that a cell is escaped one way and a markdown table looks one
// way everywhere. The operator table's text form is PyTorch's layout and stays in optable. It sits low: the
// analyses and the report import it.
//
// Markdown: one style, tablewriter's (columns padded, an alignment row). A cell renders on
// GitHub as the exact string. The punctuation markdown would act on is backslash-escaped ("|"
// would end the cell, "*" and "_" start emphasis, "<" a tag, "[" a link, "&" an entity, "`" a
// code span), but for "_" inside a word, which cannot start emphasis there (as_strided stays
// readable); control characters (C0, DEL, C1; a newline among them) become numeric character
// references, so the file holds no raw terminal escape and a row stays on its line. Bytes
// that are not UTF-8 are written as U+FFFD: a markdown file is text.
//
// CSV: RFC 4180 through encoding/csv. A cell holds no raw control character (they are
// escaped as the text tables escape them) and never starts a spreadsheet formula: a cell
// starting with =, +, - or @ gets a leading "'" unless it is a plain decimal number, so a
// diff's negative deltas stay numbers (CSVCell; docs/cli.md).
package text
