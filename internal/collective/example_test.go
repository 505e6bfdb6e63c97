package collective_test

import (
	"fmt"

	"github.com/orprof/orprof/internal/collective"
)

// A kernel's args say an all-reduce of 64 Mi floats over 8 ranks; it transferred for 2.5 ms.
func Example() {
	c := collective.New()
	c.Name, c.Group, c.Seq, c.CommsID = "allreduce", "0", 42, "17293822569102704642"
	c.InNelems, c.OutNelems, c.Dtype, c.GroupSize = 64<<20, 64<<20, "Float", 8

	bytes, _ := c.Bytes()
	n, _ := c.Size()
	algbw, busbw, _ := collective.Bandwidth(bytes, 2_500_000, collective.KindOf(c.Name), n)
	fmt.Printf("%v of %d bytes in group %q (seq %d, comms id %s)\n", collective.KindOf(c.Name), bytes, c.Group, c.Seq, c.CommsID)
	fmt.Printf("algbw %.1f GB/s, busbw %.1f GB/s\n", algbw/1e9, busbw/1e9)
	// Output:
	// allreduce of 268435456 bytes in group "0" (seq 42, comms id 17293822569102704642)
	// algbw 107.4 GB/s, busbw 187.9 GB/s
}
