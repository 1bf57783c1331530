// Command admit is the capability gate for AI coding agents; see README.md.
package main

import "os"

func main() { os.Exit(0) }
