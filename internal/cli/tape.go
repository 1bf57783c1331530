package cli

import (
	"encoding/json"
	"flag"
	"fmt"

	"admit/gate"
	"admit/tape"
)

// tapeCmd is `admit tape`: query the tape, or verify its chain.
func tapeCmd(args []string, std Stdio) int {
	if len(args) > 0 && args[0] == "replay" {
		return replayCmd(args[1:], std) // replay.go
	}
	fs := flag.NewFlagSet("admit tape", flag.ContinueOnError)
	fs.SetOutput(std.Err)
	var p gate.TapeParams
	path := fs.String("tape", "", "the tape (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	fs.StringVar(path, "path", "", "the same as --tape (the older name)")
	verify := fs.Bool("verify", false, "verify the hash chain and name the first broken line")
	fs.StringVar(&p.Since, "since", "", "records at or after this RFC 3339 time")
	fs.IntVar(&p.Limit, "limit", 0, "only the newest N records")
	fs.StringVar(&p.Verdict, "verdict", "", "allow or deny")
	fs.StringVar(&p.Rule, "rule", "", "records decided by this rule")
	fs.StringVar(&p.Tool, "tool", "", "records of this tool")
	fs.StringVar(&p.Session, "session", "", "records of this session")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageError(std, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	tapePath, err := defaultTape(*path)
	if err != nil {
		return failed(std, configError{err})
	}
	if *verify {
		n, err := tape.Verify(tapePath)
		if err != nil {
			fmt.Fprintf(std.Err, "admit: tape %s: %v\n", tapePath, err)
			return 1
		}
		fmt.Fprintf(std.Out, "%s: %d records, chain intact\n", tapePath, n)
		return exitOK
	}
	filter, err := p.Filter()
	if err != nil {
		return usageError(std, err)
	}
	recs, err := tape.Query(tapePath, filter)
	if err != nil {
		return failed(std, err)
	}
	enc := json.NewEncoder(std.Out)
	for i := range recs {
		_ = enc.Encode(&recs[i])
	}
	return exitOK
}
