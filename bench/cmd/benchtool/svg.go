package main

import (
	"fmt"
	"math"
	"os"
	"strings"
)

// series is one line of a chart.
type series struct {
	name string
	x, y []float64
}

// chart is a log-log (or log-x, linear-y) line chart written as SVG with no
// dependency: axes, decade grid, one polyline with markers per series, legend.
type chart struct {
	title, xlabel, ylabel string
	logY                  bool
	series                []series
	xTick                 func(float64) string
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

func (c *chart) write(path string) error {
	const W, H = 760, 440
	const left, right, top, bottom = 78, 210, 36, 56
	pw, ph := float64(W-left-right), float64(H-top-bottom)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range c.series {
		for i := range s.x {
			xmin, xmax = math.Min(xmin, s.x[i]), math.Max(xmax, s.x[i])
			ymin, ymax = math.Min(ymin, s.y[i]), math.Max(ymax, s.y[i])
		}
	}
	lx0, lx1 := math.Floor(math.Log10(xmin)), math.Ceil(math.Log10(xmax))
	if lx1 == lx0 {
		lx1++
	}
	var y0, y1 float64
	if c.logY {
		y0, y1 = math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if y1 == y0 {
			y1++
		}
	} else {
		y0, y1 = 0, niceCeil(ymax*1.05)
	}
	px := func(x float64) float64 { return left + (math.Log10(x)-lx0)/(lx1-lx0)*pw }
	py := func(y float64) float64 {
		v := y
		if c.logY {
			v = math.Log10(y)
		}
		return top + ph - (v-y0)/(y1-y0)*ph
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, esc(c.title))
	// Grid and ticks.
	for e := lx0; e <= lx1; e++ {
		x := px(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x, top, x, top+ph)
		label := fmt.Sprintf("1e%d", int(e))
		if c.xTick != nil {
			label = c.xTick(math.Pow(10, e))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, top+ph+18, esc(label))
	}
	if c.logY {
		for e := y0; e <= y1; e++ {
			y := py(math.Pow(10, e))
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, left+pw, y)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, esc(siTime(math.Pow(10, e))))
		}
	} else {
		for i := 0; i <= 5; i++ {
			v := y1 * float64(i) / 5
			y := py(v)
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, left+pw, y)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, esc(trimFloat(v)))
		}
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#444"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", left+pw/2, H-14, esc(c.xlabel))
	fmt.Fprintf(&b, `<text transform="translate(16,%.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+ph/2, esc(c.ylabel))
	// Series.
	for i, s := range c.series {
		col := palette[i%len(palette)]
		dash := ""
		if strings.Contains(s.name, "vtproto") || strings.Contains(s.name, "protobuf-go") {
			dash = ` stroke-dasharray="6 3"`
		}
		var pts []string
		for j := range s.x {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.x[j]), py(s.y[j])))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", col, dash, strings.Join(pts, " "))
		for j := range s.x {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`+"\n", px(s.x[j]), py(s.y[j]), col)
		}
		ly := top + 8 + 18*i
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%d" x2="%.0f" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", left+pw+12, ly, left+pw+34, ly, col, dash)
		fmt.Fprintf(&b, `<text x="%.0f" y="%d">%s</text>`+"\n", left+pw+40, ly+4, esc(s.name))
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// siTime formats nanoseconds.
func siTime(ns float64) string {
	switch {
	case ns >= 1e9:
		return trimFloat(ns/1e9) + " s"
	case ns >= 1e6:
		return trimFloat(ns/1e6) + " ms"
	case ns >= 1e3:
		return trimFloat(ns/1e3) + " µs"
	}
	return trimFloat(ns) + " ns"
}

func siBytes(n float64) string {
	switch {
	case n >= 1<<20:
		return trimFloat(n/(1<<20)) + " MiB"
	case n >= 1<<10:
		return trimFloat(n/(1<<10)) + " KiB"
	}
	return trimFloat(n) + " B"
}
