package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/chromedp/chromedp"
)

// navTiming is what a browser's Navigation Timing says of a page load, in
// milliseconds from the navigation's start.
type navTiming struct {
	FirstByte float64 `json:"firstByte"` // responseStart
	Loaded    float64 `json:"loaded"`    // loadEventEnd: parsed, styled, its script run
}

// browserTimes loads each URL runs times in a headless Chromium (its
// default lookup, or TAPE_CHROMIUM), taking turns, and returns what
// Navigation Timing says of each load.
func browserTimes(urls []string, runs int) (map[string][]navTiming, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.Headless, chromedp.WindowSize(1280, 900))
	if path := os.Getenv("TAPE_CHROMIUM"); path != "" {
		opts = append(opts, chromedp.ExecPath(path))
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The first run starts the browser in ctx: a run in a context derived
	// with a timeout would close it with that context.
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		return nil, fmt.Errorf("start Chromium: %w", err)
	}
	load := func(u string) (navTiming, error) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Navigate(u)); err != nil {
			return navTiming{}, err
		}
		return chromedp.Run(ctx, chromedp.Poll[navTiming](
			`(() => { const n = performance.getEntriesByType("navigation")[0];
			  return n && n.loadEventEnd > 0 ? {firstByte: n.responseStart, loaded: n.loadEventEnd} : null; })()`))
	}
	times := map[string][]navTiming{}
	for _, u := range urls { // warm: the browser's start, the style sheet cached
		if _, err := load(u); err != nil {
			return nil, fmt.Errorf("load %s: %w", u, err)
		}
	}
	for run := range runs {
		order := urls
		if run%2 == 1 {
			order = reversed(urls)
		}
		for _, u := range order {
			t, err := load(u)
			if err != nil {
				return nil, fmt.Errorf("load %s: %w", u, err)
			}
			times[u] = append(times[u], t)
		}
	}
	return times, nil
}

// msPct is the p-th percentile of the values f takes of times.
func msPct(times []navTiming, p int, f func(navTiming) float64) float64 {
	d := make([]time.Duration, len(times))
	for i, t := range times {
		d[i] = time.Duration(f(t) * float64(time.Millisecond))
	}
	return ms(pct(d, p))
}
