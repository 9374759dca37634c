package web

import (
	"fmt"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/views/usage"
)

// The usage chart: tokens per day as bars, drawn as SVG on the server,
// so that the page needs no chart library and no script.

// chartDays is how many days the chart spans, ending with the last day
// that has usage.
const chartDays = 60

// Chart geometry, in the SVG's user units.
const (
	chartW, chartH = 600.0, 160.0
	chartTop       = 10.0
	chartBottom    = 20.0 // room for the day labels
)

type chart struct {
	Bars   []bar
	Labels []label
	Max    int64 // the tallest bar's tokens
	W, H   float64
}

type bar struct {
	X, Y, W, H float64
	Title      string // the day and its tokens, shown on hover
}

type label struct {
	X      float64
	Text   string
	Anchor string // the SVG text-anchor that keeps it inside the chart
}

// dayChart draws the total tokens of each day (rows of usage.Sum by day,
// in time order) over the chartDays days that end with the last one; days
// without runs are gaps. It draws nothing without usage.
func dayChart(days []usage.Row) chart {
	byDay := map[string]int64{}
	cost := map[string]string{}
	var last time.Time
	for _, d := range days {
		t, err := time.Parse(time.DateOnly, d.Day)
		if err != nil {
			continue // runs without a date
		}
		byDay[d.Day] = d.Total
		if d.PricedRuns > 0 {
			cost[d.Day] = ", " + usd(d)
		}
		if t.After(last) {
			last = t
		}
	}
	c := chart{W: chartW, H: chartH}
	if len(byDay) == 0 {
		return c
	}
	first := last.AddDate(0, 0, -(chartDays - 1))
	for i := range chartDays { // the bars drawn: an older day does not scale them
		c.Max = max(c.Max, byDay[first.AddDate(0, 0, i).Format(time.DateOnly)])
	}
	step := chartW / chartDays
	plot := chartH - chartTop - chartBottom
	for i := range chartDays {
		day := first.AddDate(0, 0, i).Format(time.DateOnly)
		x := float64(i) * step
		switch i {
		case 0:
			c.Labels = append(c.Labels, label{X: x, Text: day, Anchor: "start"})
		case chartDays / 2:
			c.Labels = append(c.Labels, label{X: x + step/2, Text: day, Anchor: "middle"})
		case chartDays - 1:
			c.Labels = append(c.Labels, label{X: x + step, Text: day, Anchor: "end"})
		}
		v, ok := byDay[day]
		if !ok || c.Max == 0 {
			continue
		}
		h := max(1, plot*float64(v)/float64(c.Max))
		c.Bars = append(c.Bars, bar{X: x + step*0.1, Y: chartTop + plot - h, W: step * 0.8, H: h, Title: fmt.Sprintf("%s: %s tokens%s", day, wording.Thousands(v), cost[day])})
	}
	return c
}
