package wording

import (
	"fmt"
	"math"
	"time"
)

// Thousands is n with its thousands separated by commas.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Dollars is a cost in USD as every front end shows it: to the cent, its
// thousands separated ("$1,234.56"), and "<$0.01" for less than a cent
// that is not nothing.
func Dollars(usd float64) string {
	if usd > 0 && usd < 0.005 {
		return "<$0.01"
	}
	cents := int64(math.Round(usd * 100))
	return fmt.Sprintf("$%s.%02d", Thousands(cents/100), cents%100)
}

// HoursMinutes is d, rounded down to the minute, as hours and minutes
// (3h 07m, or 45m under an hour); a negative d is 0m.
func HoursMinutes(d time.Duration) string {
	d = max(d, 0)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if h == 0 {
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dh %02dm", h, m)
}
