package kineto

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigRefusesNonsense: negative durations and counts, and input quoted in errors is
// capped, however long the line.
func TestConfigRefusesNonsense(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"negative duration", "ACTIVITIES_DURATION_SECS = -5", `ACTIVITIES_DURATION_SECS: "-5": out of range [0, 2147483647]`},
		{"negative ms", "ACTIVITIES_DURATION_MSECS=-1", "out of range"},
		{"negative iterations", "ACTIVITIES_ITERATIONS = -3", "out of range"},
		{"negative buffer", "ACTIVITIES_MAX_GPU_BUFFER_SIZE_MB = -1", "out of range"},
		{"huge number", "ACTIVITIES_DURATION_SECS = " + strings.Repeat("9", 5000), "out of range"},
		{"huge line", "X = " + strings.Repeat("=", 60000), "want one KEY = VALUE"},
		{"line over 1 MiB", "A = " + strings.Repeat("a", 2<<20), "line longer than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig(tt.text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Less(t, len(err.Error()), 400, "the error quotes at most ~100 bytes of input")
		})
	}
	c, err := ParseConfig("ACTIVITIES_DURATION_SECS = 0\nPROFILE_START_ITERATION = 0")
	require.NoError(t, err)
	assert.Equal(t, "0", c.Options["ACTIVITIES_DURATION_SECS"])
}
