package shell

import "testing"

// benchLines are typical agent command lines.
var benchLines = []string{
	`git diff HEAD~1 -- src/a.go`,
	`grep -rn TODO src`,
	`ls -la`,
	`find . -name '*.go'`,
	`git log --oneline -5 | head -3`,
	`wc -l a b`,
	`mkdir -p build/out`,
	`cat a.txt 2>/dev/null`,
	`cd src && ls`,
	`git status`,
}

// BenchmarkParse measures one typical line with a reused Parser.
func BenchmarkParse(b *testing.B) {
	p := NewParser(home)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, prob := p.Parse(benchLines[i%len(benchLines)], Analyze); prob != nil {
			b.Fatal(prob.Reason)
		}
	}
}

// BenchmarkParseRefuse is the same lines in the strict profile, which
// tokenizes and then parses.
func BenchmarkParseRefuse(b *testing.B) {
	p := NewParser(home)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Parse(benchLines[i%len(benchLines)], Refuse)
	}
}

// BenchmarkParseProfiles is the same lines in every profile, the
// interactive ones included (their byte scan and checks come on top of
// analyze's walk).
func BenchmarkParseProfiles(b *testing.B) {
	for _, prof := range Profiles() {
		b.Run(string(prof), func(b *testing.B) {
			p := NewParser(home)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, prob := p.Parse(benchLines[i%len(benchLines)], prof); prob != nil && prof != Refuse {
					b.Fatal(prob.Reason)
				}
			}
		})
	}
}
