package main

import "io"

func runPlugins(args []string, stdout, stderr io.Writer) int { return fail(stderr, "plugins: not built yet") }

func runRun(args []string, stdout, stderr io.Writer) int { return fail(stderr, "run: not built yet") }
