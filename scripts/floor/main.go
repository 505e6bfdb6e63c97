// Command floor is the memory-bandwidth floor scripts/bench-table.sh sets beside `orprof
// table`: it streams each file named on the command line through one 256 KiB buffer, as the
// trace reader does, and counts its newlines with bytes.Count — the least any reader of the
// file must do. It prints the byte and line counts.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

func main() {
	buf := make([]byte, 256<<10)
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(2)
		}
		var n, lines int64
		for {
			m, err := f.Read(buf)
			n += int64(m)
			lines += int64(bytes.Count(buf[:m], []byte{'\n'}))
			if err == io.EOF {
				break
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "floor:", err)
				os.Exit(2)
			}
		}
		f.Close()
		fmt.Println(path, n, "bytes", lines, "lines")
	}
}
