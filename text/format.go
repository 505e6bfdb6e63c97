package text

import "strconv"

// Format is an output form of a command's tables: text, markdown, csv or json.
type Format string

// The formats.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	CSV      Format = "csv"
	JSON     Format = "json"
)

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, bool) {
	switch f := Format(s); f {
	case Text, Markdown, CSV, JSON:
		return f, true
	}
	return "", false
}

// Time renders µs as PyTorch's tables do: "1.234s", "12.345ms" or "123.456us".
func Time(us float64) string {
	switch {
	case us >= 1e6:
		return strconv.FormatFloat(us/1e6, 'f', 3, 64) + "s"
	case us >= 1e3:
		return strconv.FormatFloat(us/1e3, 'f', 3, 64) + "ms"
	}
	return strconv.FormatFloat(us, 'f', 3, 64) + "us"
}

// Percent renders part as a percentage of whole with prec decimals ("12.34%"), or none when
// whole is 0 (each table says what an undefined share prints as: "-", "NaN", "0.00%").
func Percent(part, whole float64, prec int, none string) string {
	if whole == 0 {
		return none
	}
	return strconv.FormatFloat(100*part/whole, 'f', prec, 64) + "%"
}

// Row limits every table writer and --row-limit share: a count N > 0 prints the first N rows,
// RowLimitAll every row, RowLimitNone none (the totals under the table still print; PyTorch's
// row_limit=0). --row-limit 0 is RowLimitNone in every command.
const (
	RowLimitAll  = -1
	RowLimitNone = -2
)
