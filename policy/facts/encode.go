package facts

import (
	"bytes"
	"encoding/json"
	"strconv"

	"admit/internal/jsonquote"
)

// AppendJSON appends f as json.Marshal encodes it, byte for byte (fields in
// their order, empty ones left out as their tags say, map keys sorted,
// strings escaped as encoding/json escapes them): it is on every decision
// and encoding/json's reflection cost more than the rest of the record.
// TestAppendJSONIsMarshal holds the two together.
func (f *Facts) AppendJSON(b []byte) ([]byte, error) {
	b, err := f.appendSettings(b, f.V)
	if err != nil {
		return b, err
	}
	a := answers{Resolve: answered[Resolved]{list: sortedOf(f.Resolve)}, Links: answered[[]string]{list: sortedOf(f.Links)},
		Split: answered[[]string]{list: sortedOf(f.Split)}, Options: answered[[]string]{list: sortedOf(f.Options)},
		GitExec: answered[string]{list: sortedOf(f.GitExec)}, GitConfig: answered[[]string]{list: sortedOf(f.GitConfig)},
		CargoExec: answered[string]{list: sortedOf(f.CargoExec)},
		ReadDir:   answered[Dir]{list: sortedOf(f.ReadDir)}, Remotes: answered[*[]string]{list: sortedOf(f.Remotes)},
		WriteExec: answered[string]{list: sortedOf(f.WriteExec)}, Creds: answered[*[]string]{list: sortedOf(f.Creds)},
		GitTracked: answered[*[]string]{list: sortedOf(f.GitTracked)}, Holds: answered[bool]{list: sortedOf(f.Holds)}, ObsFile: answered[ObsAnswer]{list: sortedOf(f.ObsFile)},
		ObsDir: answered[bool]{list: sortedOf(f.ObsDir)}}
	return a.appendJSON(b), nil
}

// appendSettings opens the object and appends f's fields up to its
// answers, with v as its version.
func (f *Facts) appendSettings(b []byte, v int) ([]byte, error) {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"roots":`...)
	b = appendStrings(b, f.Roots, true)
	b = append(b, `,"effects":`...)
	b = appendJSONString(b, f.Effects)
	b = append(b, `,"profile":`...)
	b = appendJSONString(b, f.Profile)
	b = appendStr(b, `,"home":`, f.Home)
	b = appendStr(b, `,"cwd":`, f.Cwd)
	b = appendList(b, `,"argv":`, f.Argv)
	b = appendTrue(b, `,"line":true`, f.Line)
	b = appendList(b, `,"path":`, f.Path)
	b = appendTrue(b, `,"pathKnown":true`, f.PathKnown)
	b = appendList(b, `,"secretValues":`, f.SecretValues)
	b = appendTrue(b, `,"background":true`, f.Background)
	b = appendTrue(b, `,"terminal":true`, f.Terminal)
	b = appendTrue(b, `,"admitRuns":true`, f.AdmitRuns)
	if len(f.Session) > 0 {
		// As json.Marshal gives a json.RawMessage: compacted, with <, >
		// and & escaped.
		var c bytes.Buffer
		if err := json.Compact(&c, f.Session); err != nil {
			return b, err
		}
		out := bytes.NewBuffer(append(b, `,"session":`...))
		json.HTMLEscape(out, c.Bytes())
		b = out.Bytes()
	}
	if f.MaxRequestChars != 0 {
		b = append(b, `,"maxRequestChars":`...)
		b = strconv.AppendInt(b, f.MaxRequestChars, 10)
	}
	b = appendStr(b, `,"budget":`, f.Budget)
	b = appendList(b, `,"inFlux":`, f.InFlux)
	b = appendTrue(b, `,"confinedOK":true`, f.ConfinedOK)
	b = appendStr(b, `,"tainted":`, f.Tainted)
	b = appendTrue(b, `,"oneCall":true`, f.OneCall)
	b = appendTrue(b, `,"tracked":true`, f.Tracked)
	b = appendTrue(b, `,"pinned":true`, f.Pinned)
	b = appendStr(b, `,"amendRule":`, f.AmendRule)
	b = appendStr(b, `,"amendWhy":`, f.AmendWhy)
	b = append(b, `,"rule":`...)
	b = appendJSONString(b, f.Rule)
	b = append(b, `,"outcome":`...)
	b = appendJSONString(b, f.Outcome)
	b = appendStr(b, `,"before":`, f.Before)
	return b, nil
}

// appendJSON appends the answers, each kind's keys sorted, and closes
// the object appendSettings opened.
func (a *answers) appendJSON(b []byte) []byte {
	b = appendEntries(b, `,"resolve":`, a.Resolve.sorted(), appendResolved)
	b = appendEntries(b, `,"links":`, a.Links.sorted(), appendStringsNull)
	b = appendEntries(b, `,"split":`, a.Split.sorted(), appendStringsNull)
	b = appendEntries(b, `,"options":`, a.Options.sorted(), appendStringsNull)
	b = appendEntries(b, `,"gitExec":`, a.GitExec.sorted(), appendJSONString)
	b = appendEntries(b, `,"gitConfig":`, a.GitConfig.sorted(), appendStringsNull)
	b = appendEntries(b, `,"cargoExec":`, a.CargoExec.sorted(), appendJSONString)
	b = appendEntries(b, `,"readDir":`, a.ReadDir.sorted(), appendDir)
	b = appendEntries(b, `,"remotes":`, a.Remotes.sorted(), appendStringsPtr)
	b = appendEntries(b, `,"writeExec":`, a.WriteExec.sorted(), appendJSONString)
	b = appendEntries(b, `,"gitCredentials":`, a.Creds.sorted(), appendStringsPtr)
	b = appendEntries(b, `,"gitTracked":`, a.GitTracked.sorted(), appendStringsPtr)
	b = appendEntries(b, `,"holds":`, a.Holds.sorted(), strconv.AppendBool)
	b = appendEntries(b, `,"obsFile":`, a.ObsFile.sorted(), func(b []byte, v ObsAnswer) []byte { return strconv.AppendInt(b, int64(v), 10) })
	b = appendEntries(b, `,"obsDir":`, a.ObsDir.sorted(), strconv.AppendBool)
	b = appendEntries(b, `,"gitHead":`, a.GitHead.sorted(), appendGitHead)
	b = appendEntries(b, `,"pathDirs":`, a.PathDirs.sorted(), appendJSONString)
	return append(b, '}')
}

func appendGitHead(b []byte, h GitHead) []byte {
	n := len(b)
	b = appendStr(append(b, '{'), `,"t":`, h.Top)
	b = appendStr(b, `,"b":`, h.Branch)
	b = appendStr(b, `,"c":`, h.Commit)
	b = appendTrue(b, `,"on":true`, h.OnBranch)
	b = appendTrue(b, `,"det":true`, h.Detached)
	return closeObject(b, n)
}

// appendStringsPtr appends a list that may be unknown (nil: null).
func appendStringsPtr(b []byte, v *[]string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return appendStrings(b, *v, true)
}

func appendResolved(b []byte, r Resolved) []byte {
	n := len(b)
	b = appendStr(append(b, '{'), `,"p":`, r.Path)
	b = appendTrue(b, `,"e":true`, r.Exists)
	b = appendTrue(b, `,"d":true`, r.Dir)
	if r.Mode != 0 {
		b = strconv.AppendUint(append(b, `,"m":`...), uint64(r.Mode), 10)
	}
	if r.Links != 0 {
		b = strconv.AppendUint(append(b, `,"l":`...), r.Links, 10)
	}
	b = appendStr(b, `,"err":`, r.Err)
	return closeObject(b, n)
}

func appendDir(b []byte, d Dir) []byte {
	n := len(b)
	b = appendList(append(b, '{'), `,"n":`, d.Names)
	if len(d.Modes) > 0 {
		b = append(b, `,"m":[`...)
		for i, m := range d.Modes {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(m), 10)
		}
		b = append(b, ']')
	}
	b = appendStr(b, `,"err":`, d.Err)
	b = appendStr(b, `,"k":`, d.Kind)
	return closeObject(b, n)
}

// closeObject ends the object begun at b[n] ('{'), whose fields were
// each appended with a leading comma: the first comma goes.
func closeObject(b []byte, n int) []byte {
	if len(b) > n+1 {
		b = append(b[:n+1], b[n+2:]...)
	}
	return append(b, '}')
}

func appendTrue(b []byte, field string, v bool) []byte {
	if v {
		b = append(b, field...)
	}
	return b
}

// appendStr appends key and s unless s is empty (omitempty).
func appendStr(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendList appends key and ss unless ss is empty (omitempty).
func appendList(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	return appendStrings(append(b, key...), ss, false)
}

// appendStringsNull is a []string map value: a nil one is null.
func appendStringsNull(b []byte, ss []string) []byte { return appendStrings(b, ss, true) }

// appendStrings appends ss as an array, null when nil and null is asked.
func appendStrings(b []byte, ss []string, null bool) []byte {
	if ss == nil && null {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendEntries appends key and es, sorted by key, unless es is empty.
func appendEntries[V any](b []byte, key string, es []entry[V], val func([]byte, V) []byte) []byte {
	if len(es) == 0 {
		return b
	}
	b = append(b, key...)
	b = append(b, '{')
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, e.k)
		b = append(b, ':')
		b = val(b, e.v)
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it.
func appendJSONString(b []byte, s string) []byte {
	return append(jsonquote.AppendBody(append(b, '"'), s, jsonquote.Marshal), '"')
}
