package main

import "io"

func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return exitUsage }
