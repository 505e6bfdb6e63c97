package profilertest

import _ "github.com/orprof/orprof/internal/golden" // every test binary takes -update
