package sim

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Series is one line of a plot.
type Series struct {
	Name string
	X, Y []float64
	Dash bool
}

// Plot is a line chart with a linear x axis and a log10 y axis.
type Plot struct {
	Title, XLabel, YLabel string
	Series                []Series
	Width, Height         int
}

var palette = []string{"#000000", "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"}

// WriteSVG renders p as a standalone SVG document. Non-positive or NaN
// points are skipped (log axis).
func (p *Plot) WriteSVG(w io.Writer) error {
	W, H := p.Width, p.Height
	if W == 0 {
		W, H = 760, 420
	}
	const left, right, top, bottom = 70, 170, 40, 50
	pw, ph := float64(W-left-right), float64(H-top-bottom)
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for i := range s.X {
			if !(s.Y[i] > 0) || math.IsInf(s.Y[i], 0) {
				continue
			}
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
		}
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax, ymin, ymax = 0, 1, 1, 10
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
	if hi == lo {
		hi = lo + 1
	}
	sx := func(x float64) float64 { return float64(left) + (x-xmin)/(xmax-xmin)*pw }
	sy := func(y float64) float64 { return float64(top) + (hi-math.Log10(y))/(hi-lo)*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(p.Title))
	for e := lo; e <= hi; e++ {
		y := sy(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, float64(left)+pw, y, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, fmtTick(math.Pow(10, e)))
	}
	xs := map[float64]bool{}
	for _, s := range p.Series {
		for _, x := range s.X {
			xs[x] = true
		}
	}
	for x := range xs {
		X := sx(x)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="#eee"/>`, X, X, top, float64(top)+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", X, float64(top)+ph+16, x)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+pw/2, H-10, html.EscapeString(p.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(16 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", float64(top)+ph/2, html.EscapeString(p.YLabel))
	for k, s := range p.Series {
		col := palette[k%len(palette)]
		var pts []string
		for i := range s.X {
			if s.Y[i] > 0 && !math.IsInf(s.Y[i], 0) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(s.X[i]), sy(s.Y[i])))
			}
		}
		dash := ""
		if s.Dash {
			dash = ` stroke-dasharray="6 3"`
		}
		width := 1.5
		if k < 2 {
			width = 2.5
		}
		if len(pts) > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="%.1f"%s points="%s"/>`+"\n", col, width, dash, strings.Join(pts, " "))
			for _, pt := range pts {
				xy := strings.Split(pt, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`, xy[0], xy[1], col)
			}
		}
		ly := top + 8 + 16*k
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2.5"%s/>`, W-right+12, W-right+36, ly, ly, col, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", W-right+42, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtTick(v float64) string {
	if v >= 1 {
		return fmt.Sprintf("%g s", v)
	}
	return fmt.Sprintf("%g s", v)
}
