package tsc

import "os"

func disabledByEnv() bool { return os.Getenv("ORPROF_NO_TSC") == "1" }
