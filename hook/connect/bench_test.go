package connect

import "testing"

// BenchmarkSurvey is what admit/agents costs: every host's files read,
// parsed, judged and the change to connect computed, on the fake home.
func BenchmarkSurvey(b *testing.B) {
	home := fakeHome(b)
	o := Options{Home: home, Binary: fakeBinary(b), GOOS: "linux"}
	for b.Loop() {
		if sts := Survey(quiet, o); len(sts) != len(hosts) {
			b.Fatal(len(sts))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/survey")
}
