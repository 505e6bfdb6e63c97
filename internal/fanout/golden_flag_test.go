package fanout

import _ "github.com/orprof/orprof/internal/golden"
