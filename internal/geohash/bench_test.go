package geohash

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkContains is a search's work per candidate: decode the score,
// test the shape (about one candidate in ten inside, as a radius search
// reads its nine boxes).
func BenchmarkContains(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	scores := make([]float64, 4096)
	for i := range scores {
		scores[i] = float64(Score(r.Float64()*8.4-4.2, 45+r.Float64()*4-2))
	}
	for _, box := range []bool{false, true} {
		name := "radius"
		if box {
			name = "box"
		}
		b.Run(name, func(b *testing.B) {
			s := Shape{Lon: 0, Lat: 45, Radius: 100, Box: box, Width: 180, Height: 180, Conversion: 1000}
			in := 0
			for i := 0; i < b.N; i++ {
				lon, lat := FromScore(scores[i%len(scores)])
				if _, ok := s.Contains(lon, lat); ok {
					in++
				}
			}
		})
	}
}
