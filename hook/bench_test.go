package hook

import "testing"

// BenchmarkAdapters is the adapter's own share of a hook call: parse the
// host's first recorded event, map it, answer an allow.
func BenchmarkAdapters(b *testing.B) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		fx := fixtures(b, name)[0]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ev, err := a.Parse(fx.data, fx.event)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.Map(ev); err != nil {
					b.Fatal(err)
				}
				_ = a.Answer(ev, allowD)
			}
		})
	}
}
