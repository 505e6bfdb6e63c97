// Package parquet writes Parquet files of flat rows: the tables of orprof export.
//
// A Writer takes rows of a struct type whose tagged fields are the columns: int64 (INT64),
// *int64 with ",optional" (a nullable INT64), float64 (DOUBLE), bool (BOOLEAN), string
// (BYTE_ARRAY, STRING; ",dict" to dictionary-encode it) and []string with ",list" (a required
// LIST of required STRING elements, in the three-level layout of the format's LogicalTypes
// page). What it writes, and nothing more:
//
//   - file format version 2 with data pages of version 1: levels in the RLE/bit-packed
//     hybrid encoding (4-byte length first), values PLAIN, dictionary-encoded columns as one
//     PLAIN dictionary page per column chunk and RLE_DICTIONARY data pages;
//   - pages cut at Options.PageBytes of values on a row boundary, each compressed on its own
//     by Options.Codec; row groups of at most Options.RowGroupRows rows;
//   - per column chunk: null_count and min_value/max_value (NaN left out; -0 as the least
//     zero, +0 as the greatest), with TYPE_ORDER column orders so that readers trust them,
//     and for numbers and booleans the older min and max fields too;
//   - INT64 columns annotated INTEGER(64, signed) (INT_64), strings STRING (UTF8), lists LIST;
//   - the key-value metadata and created_by of Options.
//
// No page index, bloom filter, encryption or nested type other than the list is written.
// The footer and page headers are Thrift compact protocol (thrift.go). Tests read every
// kind of file back with parquet-go; orprof's DuckDB tests read the export's tables.
package parquet
