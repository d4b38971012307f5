// SPDX-License-Identifier: Apache-2.0

package ui

// A rowCache keeps the overview's rows as the last two frames drew them,
// by what they show (ovRow): a row that did not change is neither styled
// nor laid out again, and the frame's cost does not grow with the rows
// that stay the same. A nil *rowCache keeps nothing (each row is drawn).
// It holds what the last two frames used, no more: a frame starts a new
// generation (frame), and what the one before did not use is dropped.
type rowCache struct {
	rowGen  gen2[ovRow, rowCells]
	lineGen gen2[lineKey, string]
	// widths are the widest cells seen under the layout widthsKey.
	widths    []int
	widthsKey string
}

// A gen2 maps keys to what the current and the previous frame used.
type gen2[K comparable, V any] struct{ now, prev map[K]V }

func newGen2[K comparable, V any]() gen2[K, V] { return gen2[K, V]{now: map[K]V{}, prev: map[K]V{}} }

// get returns k's value, drawn by draw unless the current or previous
// frame has it; the current frame keeps it.
func (g *gen2[K, V]) get(k K, draw func() V) V {
	v, ok := g.now[k]
	if !ok {
		if v, ok = g.prev[k]; !ok {
			v = draw()
		}
		g.now[k] = v
	}
	return v
}

// frame makes the current frame the previous one and drops the one
// before.
func (g *gen2[K, V]) frame() {
	g.prev, g.now = g.now, g.prev
	clear(g.now)
}

// rowCells are a row's styled cells in column order and their widths.
type rowCells struct {
	cells  []string
	widths []int
}

// A lineKey is what one line of the table is drawn from: the row, whether
// the cursor is on it, and the layout (the screen's width, the columns
// shown and their widths).
type lineKey struct {
	row    ovRow
	cur    bool
	layout string
}

func newRowCache() *rowCache {
	return &rowCache{rowGen: newGen2[ovRow, rowCells](), lineGen: newGen2[lineKey, string]()}
}

// frame starts a frame: what the frame before last used is dropped.
func (c *rowCache) frame() {
	if c == nil {
		return
	}
	c.rowGen.frame()
	c.lineGen.frame()
}

// cells returns row's cells, drawn by draw unless cached.
func (c *rowCache) cells(row ovRow, draw func(ovRow) []string) rowCells {
	drawCells := func() rowCells {
		rc := rowCells{cells: draw(row)}
		rc.widths = make([]int, len(rc.cells))
		for i, cell := range rc.cells {
			rc.widths[i] = width(cell)
		}
		return rc
	}
	if c == nil {
		return drawCells()
	}
	return c.rowGen.get(row, drawCells)
}

// line returns the line k stands for, drawn by draw unless cached.
func (c *rowCache) line(k lineKey, draw func() string) string {
	if c == nil {
		return draw()
	}
	return c.lineGen.get(k, draw)
}

// steady widens widths to the widest cells seen since the layout key
// changed, and remembers them.
func (c *rowCache) steady(widths []int, key string) {
	if c == nil {
		return
	}
	if key != c.widthsKey || len(c.widths) != len(widths) {
		c.widths, c.widthsKey = make([]int, len(widths)), key
	}
	for i := range widths {
		widths[i] = max(widths[i], c.widths[i])
		c.widths[i] = widths[i]
	}
}
