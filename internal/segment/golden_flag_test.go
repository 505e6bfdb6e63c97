package segment

import _ "github.com/orprof/orprof/internal/golden"
