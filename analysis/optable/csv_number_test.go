package optable

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCSVTimes: CSV prints times to the nanosecond in the shortest digits, so the float error
// of a sum is not printed as data; averages to the picosecond.
func TestCSVTimes(t *testing.T) {
	for _, tc := range []struct {
		us   float64
		want string
	}{
		{39.49800000000005, "39.498"},
		{12.1 + 27.398, "39.498"},
		{58.210000000000946, "58.21"},
		{133.3810000000002, "133.381"},
		{0, "0"},
		{-1.0000000001, "-1"},
		{1234567890.123, "1234567890.123"},
		{0.0005, "0.001"},
	} {
		assert.Equal(t, tc.want, csvTime(tc.us), "%v", tc.us)
	}
	for _, tc := range []struct {
		total float64
		count int64
		want  string
	}{
		{136.71899999999988, 2, "68.3595"},
		{10.001, 3, "3.333667"},
		{54, 44, "1.227273"},
		{5, 0, "0"},
	} {
		assert.Equal(t, tc.want, csvAvg(tc.total, tc.count), "%v/%d", tc.total, tc.count)
	}
}
